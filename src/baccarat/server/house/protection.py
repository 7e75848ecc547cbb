"""Player protection: the player's own loss and stake limits, reality checks, time-outs and
self-exclusion (as in UKGC RTS 12-14), enforced inside the bet's own transaction.

Definitions (docs/operator.md says the same):

* **Periods are rolling**: a day is the last 24 hours, a week the last 7 days, a month the last
  30 days, always ending now.  A calendar day would let a player lose the day's limit at 23:59
  and again at 00:01; a rolling window never allows more than the limit in any such span.
* **Stakes** in a period: every stake taken from the wallet in it (bets and Lucky Draw's Draw
  wager), less stakes refunded when a round was voided.
* **Loss** in a period counts the worst case: stakes still on the layout as lost, plus the net
  result of everything settled in it.  It is minus the sum of the wallet's stake, settle and
  refund movements dated in the period (credits, debits and grants are not play).  A payout whose
  result the table has not shown yet counts only once shown (as in the balance): the limits never
  tell a result early.  A bet is refused when the loss would pass the limit if the bet were lost too.
* A **tighter** limit (lower, or a first one) applies at once; a **looser** one (higher, or
  removing it) applies 24 hours after it was asked for, and until then the current one holds.
* A **time-out** (24 hours to 6 weeks) or **self-exclusion** (6 months to 5 years) stops the
  player sitting down, betting and drawing, over REST and the WebSocket alike (both go through
  :mod:`baccarat.server.playing.tables`).  The player can still log in and see the balance and history.
  Neither can be shortened, by the player or by any operator: there is no route that does.

Races: a bet of a player who has set anything locks that player's protection row FOR UPDATE
before it counts, so a player's bets are checked one after another (PostgreSQL; SQLite has one
writer at a time), and 64 bets sent at once can never pass a limit together.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NotRequired

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import ConfigurationError, ProtectionError
from baccarat.core.money import MAX_AMOUNT
from baccarat.core.registry import HELP_PHONE as HELP_LINE
from baccarat.core.registry import HELP_SITE
from baccarat.core.stakes import OwnLimit, check_own_limits
from baccarat.server.house import wallet
from baccarat.server.storage.models import LedgerTransaction, PlayLimit, Posting, Protection, aware
from baccarat.server.storage.models import now as _now

KINDS = ("loss", "stake")
#: Rolling periods, in the order they are shown.
PERIODS = {"day": timedelta(days=1), "week": timedelta(days=7), "month": timedelta(days=30)}
#: A looser limit waits this long.
LOOSER_WAIT = timedelta(hours=24)
REALITY_MINUTES = (15, 60)
TIMEOUT_HOURS = (24, 6 * 7 * 24)
EXCLUSION_MONTHS = (6, 60)
PLAY_KINDS = ("stake", "settle", "refund")
#: How far before a window its movements are read from (see :func:`_window_sums`): more than twice
#: any disagreement between the clocks that dated them (a server restarted after its wall clock
#: stepped back, two processes anchored on different wall clocks).
WINDOW_MARGIN = timedelta(days=1)


class LimitStatus(TypedDict):
    """One of the player's limits: what is in force, used and left, and a looser one waiting."""

    kind: str
    """loss or stake"""
    period: str
    """day, week or month (rolling: 24 hours, 7 days, 30 days)"""
    amount: int | None
    """minor units, in force now (None: none in force)"""
    used: int
    """minor units staked (a stake limit) or lost (a loss limit) in the rolling period up to now"""
    left: int | None
    """minor units left before the limit (None: none in force)"""
    pending: int | None
    """the looser amount waiting for its 24 hours (None: none, or a removal)"""
    removing: bool
    """the limit goes when its 24 hours are over"""
    pending_from: str | None
    """when the waiting change comes into force"""


class Blocked(TypedDict):
    """A time-out or self-exclusion in force."""

    kind: str
    """time-out or self-exclusion"""
    until: str


class SessionResult(TypedDict):
    """Time played and net result since the login (the reality check)."""

    since: str
    """when the session began (the login)"""
    minutes: int
    """minutes played since"""
    net: int
    """minor units won (or lost, negative) since, leaving out payouts not shown yet"""
    staked: int
    """minor units staked since"""


class ProtectionStatus(TypedDict):
    """The player's protection as ``GET /api/protection`` shows it (the route adds ``session``)."""

    limits: list[LimitStatus]
    reality_minutes: int | None
    """the reality check's interval (None: none)"""
    blocked: Blocked | None
    """a break in force (None: none)"""
    help_line: str
    help_site: str
    session: NotRequired[SessionResult | None]
    """this session's time played and net result (what the reality check shows)"""


def _row(s: Session, account_id: int, *, lock: bool = False) -> Protection | None:
    return s.get(Protection, account_id, with_for_update=lock, populate_existing=lock)


def _ensure(s: Session, account_id: int) -> Protection:
    """The player's protection row, made if missing, and locked (bets of theirs wait for this change)."""
    row = _row(s, account_id, lock=True)
    if row is None:
        row = Protection(account_id=account_id)
        s.add(row)
        s.flush()
        row = _row(s, account_id, lock=True)
        assert row is not None
    return row


def _effective(limit: PlayLimit, now: datetime) -> int | None:
    """The limit in force at ``now``: a looser one waiting is in force once its time has come
    (read-only: stored as in force only when the player next changes that limit)."""
    if limit.pending_from is not None and aware(limit.pending_from) <= now:
        return limit.pending
    return limit.amount


def blocked_until(s: Session, account_id: int, now: datetime) -> tuple[str, datetime] | None:
    """("time-out" or "self-exclusion", its end) when the player may not play at ``now``."""
    row = _row(s, account_id)
    if row is None:
        return None
    in_force = [(aware(until), words) for words, until in (("self-exclusion", row.excluded_until),
                                                            ("time-out", row.timeout_until))
                if until is not None and aware(until) > now]
    if not in_force:
        return None
    until, words = max(in_force, key=lambda item: item[0])  # the one ending last (a tie: self-exclusion)
    return words, until


def check_play(s: Session, account_id: int, now: datetime | None = None) -> None:
    """Refuse a player on a time-out or self-excluded (sitting down, betting, drawing)."""
    blocked = blocked_until(s, account_id, now or _now())
    if blocked is not None:
        # the exact end, as GET /api/protection gives it: every place that shows it rounds it up to the
        # minute with the same rule (messages' ``utc``, the page's dateTime), so the banner and the refusal agree
        words, until = blocked
        code = "protection.timeout" if words == "time-out" else "protection.self_exclusion"
        raise ProtectionError.coded(code, until=until.isoformat(), help_phone=HELP_LINE, help_site=HELP_SITE)


def _sums(s: Session, account_id: int, since: datetime) -> tuple[int, int]:
    """(stakes, loss) from the wallet's play movements dated from ``since`` on (see the module)."""
    return _window_sums(s, account_id, {"since": since})["since"]


def _window_sums(s: Session, account_id: int, starts: dict[str, datetime]) -> dict[str, tuple[int, int]]:
    """(stakes, loss) for each window start in ``starts``, in one pass over the wallet's play
    movements since the earliest (a bet with daily, weekly and monthly limits reads them once)."""
    if not starts:
        return {}
    columns = []
    for name, since in starts.items():
        for kind in PLAY_KINDS:
            columns.append(func.coalesce(func.sum(case(
                (and_(LedgerTransaction.created_at >= since, LedgerTransaction.kind == kind), Posting.amount),
                else_=0)), 0).label(f"{name}_{kind}"))
    earliest = min(starts.values())
    # A movement's id and time are taken together at its insert, so one dated a margin before the
    # window was inserted before any dated in it, as long as the clocks that dated them disagree by
    # less than half the margin.  The window's postings are read on (account, id) from that one on:
    # a bet never reads the player's whole history.  (Starting from the window's first movement by
    # time, as before, trusted ids and times to rise together: a movement dated an hour early by a
    # clock stepped back, once it was the window's first, hid the player's stakes inserted before it.)
    before = s.scalar(select(LedgerTransaction.id).where(LedgerTransaction.created_at < earliest - WINDOW_MARGIN)
                      .order_by(LedgerTransaction.created_at.desc(), LedgerTransaction.id.desc()).limit(1))
    row = s.execute(select(*columns).select_from(Posting)
                    .join(LedgerTransaction, LedgerTransaction.id == Posting.transaction_id)
                    .where(Posting.account == wallet.wallet_account(account_id), Posting.transaction_id > (before or 0),
                           LedgerTransaction.kind.in_(PLAY_KINDS), LedgerTransaction.created_at >= earliest)).one()
    sums = {}
    for name in starts:
        moved = {kind: int(row._mapping[f"{name}_{kind}"]) for kind in PLAY_KINDS}
        sums[name] = (-moved["stake"] - moved["refund"], -sum(moved.values()))
    return sums


def _unshown(s: Session, account_id: int, now: datetime) -> int:
    """What the wallet already holds from results the table has not shown yet: left out of the
    loss, so the limits (used, left, a refusal's words) never tell a result before the table does."""

    return wallet.pending_payouts(s, [account_id], now).get(account_id, 0)


def check_stake(s: Session, account_id: int, stake: int, now: datetime | None = None) -> None:
    """Refuse a stake the player's own protection forbids: a break in force (:func:`check_play`), or a limit it
    would pass, named with what is left (:func:`baccarat.core.stakes.check_own_limits`).  A bet checks the same
    limits with the rest of its stake rule (:func:`own_limits`, :func:`baccarat.core.stakes.check_stakes`)."""
    now = now or _now()
    check_play(s, account_id, now)
    check_own_limits(own_limits(s, account_id, now), stake)


def own_limits(s: Session, account_id: int, now: datetime) -> list[OwnLimit]:
    """The player's stake and loss limits in force at ``now``, each with what is already counted against it.

    Called inside the bet's transaction before the stake moves; it first locks the player's protection row
    (if any), so concurrent bets of the player are counted one after another."""
    if _row(s, account_id) is None:
        return []  # nothing set: nothing to count (a limit set meanwhile takes the row's lock first)
    _row(s, account_id, lock=True)
    limits = [(limit, amount) for limit in s.scalars(select(PlayLimit).where(PlayLimit.account_id == account_id)
                                                     .order_by(PlayLimit.kind, PlayLimit.id))
              if (amount := _effective(limit, now)) is not None and limit.period in PERIODS]
    sums = _window_sums(s, account_id, {limit.period: now - PERIODS[limit.period] for limit, _ in limits})
    ahead = _unshown(s, account_id, now) if any(limit.kind == "loss" for limit, _ in limits) else 0
    counted = []
    for limit, amount in limits:
        stakes, loss = sums[limit.period]
        counted.append(OwnLimit(limit.kind, limit.period, amount, stakes if limit.kind == "stake"
                                else max(loss + ahead, 0)))
    return counted


def set_limit(s: Session, account_id: int, kind: str, period: str, amount: int | None,
              now: datetime | None = None) -> ProtectionStatus:
    """Set (or with ``amount`` None remove) a loss or stake limit: tighter at once, looser in 24 hours."""
    now = now or _now()
    if kind not in KINDS:
        raise ConfigurationError.coded("protection.limit_kind", kinds=list(KINDS), kind=kind)
    if period not in PERIODS:
        raise ConfigurationError.coded("protection.limit_period", periods=list(PERIODS), period=period)
    if amount is not None and (type(amount) is not int or not 0 < amount <= MAX_AMOUNT):
        raise ConfigurationError.coded("protection.limit_amount", most=MAX_AMOUNT)
    _ensure(s, account_id)
    limit = s.scalar(select(PlayLimit).where(PlayLimit.account_id == account_id, PlayLimit.kind == kind,
                                             PlayLimit.period == period))
    if limit is None:
        limit = PlayLimit(account_id=account_id, kind=kind, period=period, amount=None)
        s.add(limit)
    current = _effective(limit, now)
    if limit.pending_from is not None and aware(limit.pending_from) <= now:  # the looser one came into force
        limit.amount, limit.pending, limit.pending_from = current, None, None
    if amount is not None and (current is None or amount <= current):
        limit.amount, limit.pending, limit.pending_from = amount, None, None  # tighter (or the same): now
    elif amount is None and current is None:
        pass  # no such limit in force: nothing to remove (nor a removal to show as waiting)
    else:
        limit.pending, limit.pending_from = amount, now + LOOSER_WAIT
    s.flush()
    return status(s, account_id, now)


def set_reality_check(s: Session, account_id: int, minutes: int | None) -> None:
    """A reality check every ``minutes`` (15 to 60), or none."""
    low, high = REALITY_MINUTES
    if minutes is not None and (type(minutes) is not int or not low <= minutes <= high):
        raise ConfigurationError.coded("protection.reality_minutes", low=low, high=high)
    _ensure(s, account_id).reality_minutes = minutes


def add_months(moment: datetime, months: int) -> datetime:
    """``moment`` that many calendar months later (the 31st becomes the month's last day)."""
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    for day in range(moment.day, 27, -1):
        try:
            return moment.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    return moment.replace(year=year, month=month, day=min(moment.day, 28))


def take_break(s: Session, account_id: int, *, hours: int | None = None, months: int | None = None,
               now: datetime | None = None) -> ProtectionStatus:
    """A time-out of ``hours`` (24 to 6 weeks) or a self-exclusion of ``months`` (6 to 60).

    Only ever lengthens: a break already running longer is kept.  The player's seats are not touched
    here: :func:`baccarat.server.playing.seating.take_break` stands them up too."""
    now = now or _now()
    row = _ensure(s, account_id)
    if (hours is None) == (months is None):
        raise ConfigurationError.coded("protection.break_choice")
    if hours is not None:
        low, high = TIMEOUT_HOURS
        if type(hours) is not int or not low <= hours <= high:
            raise ConfigurationError.coded("protection.timeout_length", low=low, weeks=high // 24 // 7, high=high)
        until = now + timedelta(hours=hours)
        if row.timeout_until is None or aware(row.timeout_until) < until:
            row.timeout_until = until
    else:
        low, high = EXCLUSION_MONTHS
        if type(months) is not int or not low <= months <= high:
            raise ConfigurationError.coded("protection.exclusion_length", low=low, years=high // 12, high=high)
        until = add_months(now, months)
        if row.excluded_until is None or aware(row.excluded_until) < until:
            row.excluded_until = until
    s.flush()
    return status(s, account_id, now)


def status(s: Session, account_id: int, now: datetime | None = None) -> ProtectionStatus:
    """The player's settings, each limit with what is used and left, and any break in force."""
    now = now or _now()
    row = _row(s, account_id)
    limits: list[LimitStatus] = []
    rows = list(s.scalars(select(PlayLimit).where(PlayLimit.account_id == account_id)))
    sums = _window_sums(s, account_id, {limit.period: now - PERIODS[limit.period] for limit in rows})
    ahead = _unshown(s, account_id, now) if rows else 0
    for limit in rows:
        amount = _effective(limit, now)
        stakes, loss = sums[limit.period]
        used = stakes if limit.kind == "stake" else max(loss + ahead, 0)
        waiting = limit.pending_from is not None and aware(limit.pending_from) > now
        if amount is None and not waiting:
            continue  # removed
        limits.append({"kind": limit.kind, "period": limit.period, "amount": amount,
                       "used": used, "left": None if amount is None else max(amount - used, 0),
                       "pending": limit.pending if waiting else None, "removing": waiting and limit.pending is None,
                       "pending_from": aware(limit.pending_from).isoformat() if waiting and limit.pending_from
                       else None})
    limits.sort(key=lambda item: (KINDS.index(item["kind"]), list(PERIODS).index(item["period"])))
    blocked = blocked_until(s, account_id, now)
    return {"limits": limits, "reality_minutes": row.reality_minutes if row else None,
            "blocked": None if blocked is None else {"kind": blocked[0], "until": blocked[1].isoformat()},
            "help_line": HELP_LINE, "help_site": HELP_SITE}


def session_result(s: Session, account_id: int, since: datetime, now: datetime | None = None) -> SessionResult:
    """Time played and net result since ``since`` (the login), for the reality check.  Payouts not
    shown yet are left out: the check never tells a result before the table shows it."""
    now = now or _now()
    stakes, loss = _sums(s, account_id, since)
    ahead = _unshown(s, account_id, now)
    return {"since": since.isoformat(), "minutes": int((now - since).total_seconds() // 60),
            "net": -loss - ahead, "staked": stakes}
