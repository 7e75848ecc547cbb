"""The house's reports: per table and day, and per wager, with the theoretical win.

What is counted (docs/operator.md says the same):

* A **bet** counts once it is settled with a result (a bet refunded by a void does not count;
  a Lucky Draw Block Bonus settled at the first deal of a round later voided does).  Its **day**
  is the UTC date of the ledger movement that settled it.
* **Handle**: the amounts staked on those bets (Lucky Draw's Draw wager included).
  **Win**: the house's net on them, minus the sum of the players' nets, which is what the ledger's
  ``house`` account received in those settlements.  **Hold**: win / handle.
* **Theoretical win**: each stake times the exact house edge of its wager at the table's deck
  count, from :mod:`baccarat.analysis` (full shoe).  An edge is per unit of the initial wager with
  pushes counted as returning the stake (EZ's Banker on a Dragon 7, Player and Banker on a tie in
  EZ: zero net, still in the handle), so handle x edge is the house's expectation.  Lucky Draw's
  Enter edge is that of Enter together with the Draw wager played by the optimal
  (composition-dependent) strategy, per unit of Enter; the Draw stake's own value is inside that
  edge, so a Draw stake adds to the handle and nothing to the theoretical win.  A player who
  draws or stands against the strategy gives the house more than the theoretical win.
* Exact: the theoretical win is a fraction of a cent; ``theoretical`` is rounded to the cent
  (half to even) and ``theoretical_exact`` keeps the fraction.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import ConfigurationError
from baccarat.core.registry import get_game
from baccarat.server.storage.models import Bet, GameTable, LedgerTransaction, Round, Settlement, aware
from baccarat.server.storage.models import now as _now

#: The longest span one report covers (days).
MOST_DAYS = 366


@lru_cache(maxsize=32)
def house_edges(game: str, paytable: int | None, decks: int) -> dict[str, Fraction]:
    """Wager code -> exact house edge per unit staked at ``decks`` full decks, a wager's fee included (the house
    keeps the fee whatever the coup; Lucky Draw: the optimal strategy; its Draw wager 0, its value being in
    Enter's).  Kept on disk by the analysis cache, under the rules file's digest too."""
    from baccarat.analysis import cache

    def compute() -> dict[str, str]:
        from baccarat.analysis.analyze import analyze
        from baccarat.analysis.composition import Composition

        analysis = analyze(get_game(game, paytable=paytable), Composition.full(decks))
        return {wager.code: str(wager.house_edge + wager.fee) for wager in analysis.wagers}

    source = get_game(game, paytable=paytable).source
    stored = cache.json_value("house-edges", {"game": game, "paytable": paytable, "decks": decks, "source": source},
                              compute)
    edges = {code: Fraction(value) for code, value in stored.items()}
    if game == "lucky-draw":
        edges["draw"] = Fraction(0)
    return edges


class TallyJson(TypedDict):
    """Rounds, bets, handle, win, hold and the theoretical win."""

    rounds: int
    bets: int
    handle: int
    """minor units staked"""
    win: int
    """the house's net, minor units"""
    hold: float | None
    """win / handle (None without a handle)"""
    theoretical: int
    """the theoretical win, rounded to the cent"""
    theoretical_exact: str
    """the theoretical win as an exact fraction of a cent"""
    theoretical_hold: float | None


class TableInfo(TypedDict):
    table_id: int
    table: str
    game: str
    paytable: int | None
    decks: int


class DayInfo(TypedDict):
    day: str
    """the UTC date, YYYY-MM-DD"""


class TableTotals(TableInfo, TallyJson):
    """One table's sums over the report's days."""


class TableDay(DayInfo, TableInfo, TallyJson):
    """One table's sums on one day."""


class DayTotals(DayInfo, TallyJson):
    """All tables' sums on one day (the chart's series)."""


class WagerInfo(TypedDict):
    table_id: int
    table: str
    game: str
    wager: str
    wager_name: str
    edge: float
    """the wager's exact house edge, as a number"""
    edge_exact: str
    """the house edge as an exact fraction"""


class WagerTotals(WagerInfo, TallyJson):
    """One wager's sums at one table."""


#: ``from`` is a keyword: the days a report covers are written in the functional syntax.
ReportDays = TypedDict("ReportDays", {"from": str, "to": str})


class TablesReport(ReportDays):
    """Per table and day, per table, and per day for the chart, from the UTC day ``from`` to the day ``to``
    (both YYYY-MM-DD, both reported)."""

    rows: list[TableDay]
    tables: list[TableTotals]
    series: list[DayTotals]
    total: TallyJson


class WagersReport(ReportDays):
    """Per table and wager, from the UTC day ``from`` to the day ``to`` (both YYYY-MM-DD, both reported)."""

    rows: list[WagerTotals]


@dataclass
class Tally:
    """Sums over a set of settled bets."""

    rounds: set[int]
    bets: int = 0
    handle: int = 0
    win: int = 0
    theoretical: Fraction = Fraction(0)

    def add(self, round_id: int, amount: int, net: int, edge: Fraction) -> None:
        self.rounds.add(round_id)
        self.bets += 1
        self.handle += amount
        self.win -= net
        self.theoretical += amount * edge

    def json(self) -> TallyJson:
        return {"rounds": len(self.rounds), "bets": self.bets, "handle": self.handle, "win": self.win,
                "hold": round(self.win / self.handle, 6) if self.handle else None,
                "theoretical": round(self.theoretical), "theoretical_exact": str(self.theoretical),
                "theoretical_hold": round(float(self.theoretical / self.handle), 6) if self.handle else None}


def _tally() -> Tally:
    return Tally(rounds=set())


def span(start: date | None, end: date | None, now: datetime | None = None) -> tuple[date, date]:
    """The days reported: ``start`` to ``end`` inclusive (UTC), the last 30 days by default."""
    today = (now or _now()).date()
    end = end or today
    if end >= date.max:  # the report reads up to the midnight after its last day
        raise ConfigurationError.coded("report.last_day", latest=date.max.isoformat())
    if start is None and end < date.min + timedelta(days=29):
        raise ConfigurationError.coded("report.first_day_needed", last=end.isoformat())
    start = start or end - timedelta(days=29)
    if start > end:
        raise ConfigurationError.coded("report.days_swapped")
    if (end - start).days >= MOST_DAYS:
        raise ConfigurationError.coded("report.too_long", days=MOST_DAYS)
    return start, end


def _settled(s: Session, start: date, end: date, table_id: int | None, now: datetime | None) -> Iterable[Any]:
    """The settled bets of the days ``start`` to ``end``, counted once the table has shown their result (a round
    being squeezed is settled when dealt: its win, read before the cards are turned, would tell the result)."""
    now = now or _now()
    begin = datetime.combine(start, time(), tzinfo=UTC)
    finish = datetime.combine(end + timedelta(days=1), time(), tzinfo=UTC)
    query = (select(Round.id.label("round_id"), GameTable.id.label("table_id"), GameTable.name, GameTable.game,
                    GameTable.paytable, GameTable.decks, Bet.wager, Bet.amount, Settlement.net,
                    LedgerTransaction.created_at)
             .join(Settlement, Settlement.bet_id == Bet.id)
             .join(LedgerTransaction, LedgerTransaction.id == Settlement.transaction_id)
             .join(Round, Round.id == Bet.round_id).join(GameTable, GameTable.id == Round.table_id)
             .where(Settlement.event != "Void", LedgerTransaction.created_at >= begin,
                    LedgerTransaction.created_at < finish,
                    or_(Settlement.shown_at.is_(None), Settlement.shown_at <= now)))
    if table_id is not None:
        query = query.where(GameTable.id == table_id)
    return s.execute(query.order_by(LedgerTransaction.created_at, Bet.id))


def tables_report(s: Session, start: date | None = None, end: date | None = None, *, table_id: int | None = None,
                  now: datetime | None = None) -> TablesReport:
    """Per table and day, per table, per day (all tables: the chart's series) and in all."""
    start, end = span(start, end, now)
    by_day_table: dict[tuple[str, int], Tally] = {}
    by_table: dict[int, Tally] = {}
    by_day: dict[str, Tally] = {}
    total = _tally()
    names: dict[int, TableInfo] = {}
    for row in _settled(s, start, end, table_id, now):
        day = aware(row.created_at).date().isoformat()
        edge = house_edges(row.game, row.paytable, row.decks).get(row.wager, Fraction(0))
        names[row.table_id] = {"table_id": row.table_id, "table": row.name, "game": row.game,
                               "paytable": row.paytable, "decks": row.decks}
        for tally in (by_day_table.setdefault((day, row.table_id), _tally()),
                      by_table.setdefault(row.table_id, _tally()), by_day.setdefault(day, _tally()), total):
            tally.add(row.round_id, row.amount, row.net, edge)
    days = [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
    return {"from": start.isoformat(), "to": end.isoformat(),
            "rows": [{"day": day, **names[table], **tally.json()}
                     for (day, table), tally in sorted(by_day_table.items())],
            "tables": [{**names[table], **tally.json()} for table, tally in sorted(by_table.items())],
            "series": [{"day": day, **by_day.get(day, _tally()).json()} for day in days],
            "total": total.json()}


class DayAtTable(TypedDict):
    """One table's figures so far on one UTC day, counted as :func:`tables_report` counts them."""

    day: str
    """the UTC day"""
    rounds: int
    bets: int
    handle: int
    """minor units staked today (the drop), as the tables report counts them"""
    win: int
    """the house's net today, minor units"""


def day_by_table(s: Session, day: date | None = None, *, now: datetime | None = None) -> dict[int, DayAtTable]:
    """Table id -> its rounds, bets, handle and win on ``day`` (UTC; today by default), from the same
    settled bets as the reports (:func:`tables_report` for that one day gives the same handle and win).
    A table without a settled bet that day is absent."""
    day = day or (now or _now()).date()
    tallies: dict[int, Tally] = {}
    for row in _settled(s, day, day, None, now):
        tallies.setdefault(row.table_id, _tally()).add(row.round_id, row.amount, row.net, Fraction(0))
    return {table: {"day": day.isoformat(), "rounds": len(tally.rounds), "bets": tally.bets, "handle": tally.handle,
                    "win": tally.win} for table, tally in tallies.items()}


def wagers_report(s: Session, start: date | None = None, end: date | None = None, *, table_id: int | None = None,
                  now: datetime | None = None) -> WagersReport:
    """Per table and wager: bets, handle, win, hold, the exact edge and the theoretical win."""
    start, end = span(start, end, now)
    tallies: dict[tuple[int, str], Tally] = {}
    info: dict[tuple[int, str], WagerInfo] = {}
    for row in _settled(s, start, end, table_id, now):
        edges = house_edges(row.game, row.paytable, row.decks)
        edge = edges.get(row.wager, Fraction(0))
        key = (row.table_id, row.wager)
        info[key] = {"table_id": row.table_id, "table": row.name, "game": row.game, "wager": row.wager,
                     "wager_name": _wager_name(row.game, row.paytable, row.wager),
                     "edge": float(edge), "edge_exact": str(edge)}
        tallies.setdefault(key, _tally()).add(row.round_id, row.amount, row.net, edge)
    return {"from": start.isoformat(), "to": end.isoformat(),
            "rows": [{**info[key], **tally.json()} for key, tally in sorted(tallies.items())]}


def _wager_name(game: str, paytable: int | None, code: str) -> str:
    if code == "draw":
        return "Draw"
    try:
        return get_game(game, paytable=paytable).wager(code).name
    except LookupError:
        return code


def as_csv(rows: Sequence[Mapping[str, object]], columns: list[str]) -> str:
    """Rows as CSV with a header line (amounts in minor units, as in the API)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _cell(row.get(key)) for key in columns})
    return out.getvalue()


def _cell(value: object) -> object:
    """A spreadsheet opens a cell starting with = + - @ as a formula: such text gets a quote first."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


TABLE_COLUMNS = ["day", "table_id", "table", "game", "rounds", "bets", "handle", "win", "hold", "theoretical",
                 "theoretical_exact", "theoretical_hold"]
WAGER_COLUMNS = ["table_id", "table", "game", "wager", "wager_name", "edge_exact", "edge", "rounds", "bets",
                 "handle", "win", "hold", "theoretical", "theoretical_exact", "theoretical_hold"]
