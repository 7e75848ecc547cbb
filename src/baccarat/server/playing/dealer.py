"""The dealer: moves every due round on, each round in its own transaction and its own attempt.

A round that cannot be dealt (a bug, bad stored data, a full disk) must never stop a table, let
alone every table: it once did, because the loop stopped at the first exception and the same
round came first again 0.1 s later, forever.  Here each due round is tried on its own; a failure
is logged loudly (the first with its traceback, later ones in one line), the round is tried again
after a growing pause (0.5 s, 1 s, 2 s ... at most 30 s) while the other rounds go on, and after
:data:`MAX_ATTEMPTS` failures it is voided: every stake goes back to its player through the ledger
(:func:`baccarat.server.playing.dealing.void_round`), and the table opens its next round.

A failure of the storage itself (a full disk, a read-only or unreachable database) is not the
round's fault and voiding could not be written either: such a round waits the same way but is
never voided for it, and the fault is logged one line at a time (at most one per reason every 10 s)
instead of a traceback every pass.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.house import audit
from baccarat.server.playing import betting, dealing, seating
from baccarat.server.storage import clock, faults, logs
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import GameTable, Round, aware
from baccarat.server.storage.models import now as _now

log = logging.getLogger("baccarat.dealer")

#: Failed attempts at a round before it is voided and its stakes refunded.
MAX_ATTEMPTS = 5
#: Seconds the dealer waits after a window's close before dealing: bets received before the close, or in
#: the allowance for bets on their way (:data:`~baccarat.server.playing.betting.ON_THE_WAY`, shorter; each judged by
#: its arrival, see live), may still be in their group commit.  Less than the NO MORE BETS pause (1 s by
#: default), so the cards are shown at the same moments.
LATE_BETS = 0.5
#: The longest a round's deal waits, from the end of the allowance after its close, for the bets that arrived in
#: time to be committed.
LONGEST_WAIT = timedelta(seconds=5)
#: The pause after a round's first failure, doubled after each further one, and its ceiling (seconds).
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 30.0


@dataclass
class Trouble:
    """A round that failed: how often, when to try again (monotonic seconds), and the first error."""

    attempts: int
    retry_at: float
    error: str


class Dealer:
    """Deals every due round; remembers the rounds that failed (in this process) and voids them
    after :data:`MAX_ATTEMPTS` failures."""

    def __init__(self, sessions: sessionmaker[Session], *, max_attempts: int = MAX_ATTEMPTS,
                 first_pause: float = FIRST_PAUSE, longest_pause: float = LONGEST_PAUSE,
                 monotonic: Callable[[], float] = clock.monotonic, seat_grace: float = seating.SEAT_GRACE_SECONDS,
                 sit_out_rounds: int = seating.SIT_OUT_ROUNDS, late: float = 0.0) -> None:
        self.sessions, self.late = sessions, late
        #: (table id, close) -> whether bets that arrived before that close still wait for their commit in this
        #: process (its group commit's
        #: :meth:`~baccarat.server.storage.group_commit.Batcher.waiting_before`); None: none are known
        self.bets_waiting: Callable[[int, datetime], bool] | None = None
        #: the oldest heartbeat (seconds since the epoch) of a table socket's lease that still counts
        #: (:meth:`~baccarat.server.live.leases.Leases.alive_since`): a punto banco table with such a socket is
        #: dealt every window, bets or not; None: who watches is not known, no window without bets is dealt
        self.watched_since: Callable[[], float] | None = None
        self.seat_grace, self.sit_out_rounds = seat_grace, sit_out_rounds
        self.max_attempts, self.first_pause, self.longest_pause = max_attempts, first_pause, longest_pause
        self.monotonic = monotonic
        self.troubles: dict[int, Trouble] = {}  #: round id -> its failures
        self.storage = faults.FaultLog(log)

    def deal_due(self, now: datetime | None = None) -> int:
        """Deal (or finish) every round that is due and not waiting out a pause, and free the seats of
        players away longer than the grace period; returns how many rounds were dealt."""
        now = now or _now()
        self.free_seats(now)
        due = read(self.sessions, lambda s: dealing.due_rounds(s, now, late=self.late))
        if self.bets_waiting is not None and due:
            due = self._without_bets_waiting(due, now)
        for gone in set(self.troubles) - set(due):  # dealt, or voided by an operator, meanwhile
            del self.troubles[gone]
        dealt = 0
        since = None if self.watched_since is None or not due else self.watched_since()
        for round_id in due:
            trouble = self.troubles.get(round_id)
            if trouble is not None and self.monotonic() < trouble.retry_at:
                continue
            with logs.context(round_id=round_id):  # what is logged dealing it names the round
                try:
                    transaction(self.sessions, lambda s, rid=round_id: dealing.deal_round(  # type: ignore[misc]
                        s, rid, now, sit_out_rounds=self.sit_out_rounds, watched_since=since))
                except Exception as error:  # any failure: this round waits, the others go on
                    self._failed(round_id, error, now)
                else:
                    dealt += 1
                    if self.troubles.pop(round_id, None) is not None:
                        log.warning("round id %s dealt after earlier failures", round_id)
        return dealt

    def _without_bets_waiting(self, due: list[int], now: datetime) -> list[int]:
        """The due rounds less the betting rounds with bets that arrived in time (before the close and its
        allowance, :data:`~baccarat.server.playing.betting.ON_THE_WAY`) and are still being committed here: those are
        dealt once the bets are in (at most :data:`LONGEST_WAIT` late)."""
        rows = read(self.sessions, lambda s: s.execute(select(Round.id, Round.table_id, Round.closes_at).where(
            Round.id.in_(due), Round.status == "betting")).all())
        closes = {rid: (table, aware(at) + betting.ON_THE_WAY) for rid, table, at in rows}
        waiting = self.bets_waiting
        assert waiting is not None
        return [rid for rid in due if rid not in closes or now - closes[rid][1] > LONGEST_WAIT
                or not waiting(*closes[rid])]

    def free_seats(self, now: datetime) -> int:
        """Free the seats whose players have been away longer than the grace period (a failure is
        logged and the rounds go on: seats wait for the next pass)."""
        try:
            if not read(self.sessions, lambda s: seating.away_too_long(s, now, grace=self.seat_grace)):
                return 0
            return transaction(self.sessions, lambda s: seating.free_away_seats(s, now, grace=self.seat_grace))
        except Exception as error:
            problem = faults.storage_problem(error)
            if problem is None:
                log.exception("cannot free the seats of players who left")
            else:
                self.storage.report(problem, error, consequence="seats of players who left wait")
            return 0

    def _failed(self, round_id: int, error: Exception, now: datetime) -> None:
        problem = faults.storage_problem(error)
        if problem is not None:  # the disk or the database, not the round: wait, never void for it
            waiting = self.troubles.setdefault(round_id, Trouble(0, 0.0, problem))
            waiting.retry_at = self.monotonic() + self.first_pause
            self.storage.report(problem, error, consequence="rounds wait to be dealt")
            return
        trouble = self.troubles.get(round_id)
        where = _describe(self.sessions, round_id)
        if trouble is None:
            trouble = self.troubles[round_id] = Trouble(0, 0.0, f"{type(error).__name__}: {error}")
            log.error("cannot deal %s; retrying, and voiding it after %d failures", where, self.max_attempts,
                      exc_info=error)
        trouble.attempts += 1
        if trouble.attempts < self.max_attempts:
            pause = min(self.first_pause * 2 ** (trouble.attempts - 1), self.longest_pause)
            trouble.retry_at = self.monotonic() + pause
            if trouble.attempts > 1:
                log.error("cannot deal %s (failure %d of %d): %s: %s; next try in %.1f s", where, trouble.attempts,
                          self.max_attempts, type(error).__name__, error, pause)
            return
        try:
            voided = transaction(self.sessions, lambda s: _void(s, round_id, trouble, now))
        except Exception as void_error:  # could not even refund (the database is down?): keep trying, slowly
            trouble.retry_at = self.monotonic() + self.longest_pause
            log.critical("cannot void %s after %d failures: %s: %s", where, trouble.attempts,
                         type(void_error).__name__, void_error, exc_info=void_error)
            return
        del self.troubles[round_id]
        log.critical("VOIDED %s after %d failed deals (first error: %s); %s refunded on %d bets", where,
                     trouble.attempts, trouble.error, voided["refunded"] if voided else 0,
                     voided["bets_refunded"] if voided else 0)


def _void(s: Session, round_id: int, trouble: Trouble, now: datetime) -> dealing.VoidedRound | None:
    current = s.get(Round, round_id)
    if current is None or current.status not in ("betting", "decision"):
        return None
    reason = f"the round could not be dealt ({trouble.attempts} attempts); every stake was refunded"
    status = current.status
    voided = dealing.void_round(s, current.table_id, current.number, reason=reason, now=now)
    # a significant event, and a movement of money no player made: in the audit trail, linked with its refund
    audit.record(s, "dealer", "void_round", f"table {current.table_id} round {current.number}", {"status": status},
                 {"status": "void", "reason": reason, "refunded": voided["refunded"],
                  "bets_refunded": voided["bets_refunded"]}, now, movement=voided["movement"])
    return voided


def _describe(sessions: sessionmaker[Session], round_id: int) -> str:
    """``table NAME round N`` for the log (the round's id if even that cannot be read)."""
    try:
        found = read(sessions, lambda s: s.execute(select(GameTable.name, Round.number).join(
            GameTable, GameTable.id == Round.table_id).where(Round.id == round_id)).first())
    except Exception:  # the database itself may be the trouble
        found = None
    return f"table {found[0]} round {found[1]}" if found else f"round id {round_id}"


def deal_due(sessions: sessionmaker[Session], now: datetime | None = None, *,
             watched_since: float | None = None) -> int:
    """Deal every round due at ``now`` once, each on its own; a failure is raised after the others
    were dealt (for tests and tools; the server's loop keeps a :class:`Dealer`).  ``watched_since``: as
    :func:`~baccarat.server.playing.dealing.deal_round`'s."""
    now = now or _now()
    due = read(sessions, lambda s: dealing.due_rounds(s, now))
    errors: list[Exception] = []
    for round_id in due:
        try:
            transaction(sessions, lambda s, rid=round_id: dealing.deal_round(  # type: ignore[misc]
                s, rid, now, watched_since=watched_since))
        except Exception as error:
            errors.append(error)
    if errors:
        raise errors[0]
    return len(due)
