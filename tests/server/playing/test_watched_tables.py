"""Every round dealt while anyone watches (issue 31, item 7): a punto banco table with a table socket open in
any process (its lease in ``socket_leases``) deals every window, bets or not, as a live table does: the
roads fill, the shoe advances, and round numbers count hands.  A table nobody watches waits: its round
takes bets again and keeps its number, so numbers never jump over windows nobody bet in.  On both
databases; the clock is the tests' own (the rounds are dealt at the moments chosen here)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from baccarat import verify as verifier
from baccarat.server.house import accounts
from baccarat.server.live.leases import Leases
from baccarat.server.playing import betting, history, records, scoreboards, seating, tables, views
from baccarat.server.playing.dealer import Dealer, deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import LedgerTransaction, Round, Settlement, ShoeRow, aware

from ...conftest import ON_POSTGRESQL

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _setup(sessions, game: str = "mini", *, decks: int = 8) -> tuple[int, int]:
    def work(s):
        table = tables.create_table(s, f"{game}-watched", game, decks=decks, betting_seconds=10, decision_seconds=5,
                                    pace=Pace(0, 0, 0), now=T0)
        return table.id, accounts.register(s, "ann", "correct horse", grant=1_000_000).id
    return transaction(sessions, work)


def _watch(sessions, account_id: int, table_id: int) -> float:
    """A socket of ``account_id`` open at the table (its lease, as a serving process takes it); returns the
    oldest heartbeat that still counts, as the dealer is given it."""
    leases = Leases(sessions, clock=lambda: T0.timestamp())
    assert leases.take(account_id, table_id, most=5) is not None
    return leases.alive_since()


def _open(sessions, table_id: int) -> Round:
    current = read(sessions, lambda s: tables.open_round(s, table_id))
    assert current is not None
    return current


def _window(sessions, table_id: int, *, watched_since: float | None, bets: dict[int, dict[str, int]] | None = None
            ) -> Round:
    """Bets (if any) in the open window, then the dealer at its close; returns the round as it was."""
    current = _open(sessions, table_id)
    closes = aware(current.closes_at)
    for account_id, stakes in (bets or {}).items():
        transaction(sessions, lambda s, a=account_id, b=stakes: betting.place_bets(
            s, table_id, a, b, now=closes - timedelta(seconds=1)))
    deal_due(sessions, closes, watched_since=watched_since)
    return current


def _rounds(sessions, table_id: int) -> list[tuple[int, str]]:
    return read(sessions, lambda s: [(r.number, r.status) for r in s.scalars(
        select(Round).where(Round.table_id == table_id).order_by(Round.number))])


def _money_rows(sessions) -> tuple[int, int]:
    return read(sessions, lambda s: (s.scalar(select(func.count()).select_from(LedgerTransaction)) or 0,
                                     s.scalar(select(func.count()).select_from(Settlement)) or 0))


def test_a_watched_table_deals_every_window_without_bets(sessions):
    table_id, ann = _setup(sessions)
    since = _watch(sessions, ann, table_id)
    money = _money_rows(sessions)
    for _ in range(3):
        _window(sessions, table_id, watched_since=since)
    assert _rounds(sessions, table_id) == [(1, "settled"), (2, "settled"), (3, "settled"), (4, "betting")]
    assert _money_rows(sessions) == money  # no bet, no ledger entry, no settlement
    later = aware(_open(sessions, table_id).opens_at) + timedelta(seconds=1)
    with sessions() as s:
        shoe = s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id))
        dealt = [s.scalar(select(Round).where(Round.table_id == table_id, Round.number == n)) for n in (1, 2, 3)]
        roads = scoreboards.table_roads(s, table_id, later)
        view = views.table_view(s, table_id, later)
    cards = sum(len(views.json.loads(r.result)["cards"]) for r in dealt)
    assert 12 <= cards <= 18
    # the shoe advanced by the burn and the three coups' cards, and the view counts them
    assert shoe.position > cards and view["shoe"]["cards_dealt"] == shoe.position
    assert roads["stats"]["hands"] == 3 and len(roads["bead_plate"]) == 3
    # a bet in the next window is round 4: numbers count hands, without gaps
    _window(sessions, table_id, watched_since=since, bets={ann: {"banker": 1_000}})
    assert _rounds(sessions, table_id)[3] == (4, "settled")
    recalled = read(sessions, lambda s: scoreboards.recall(s, ann, now=later + timedelta(minutes=5)))
    assert [entry["round"] for entry in recalled] == [4]


def test_a_table_nobody_watches_waits_and_keeps_its_round_number(sessions):
    table_id, ann = _setup(sessions)
    since = _watch(sessions, ann, table_id + 1)  # a socket at another table watches only that one
    money = _money_rows(sessions)
    first = _open(sessions, table_id)
    for _ in range(3):
        _window(sessions, table_id, watched_since=since)
    again = _open(sessions, table_id)
    assert (again.id, again.number) == (first.id, 1) and aware(again.closes_at) > aware(first.closes_at)
    assert _rounds(sessions, table_id) == [(1, "betting")]
    assert read(sessions, lambda s: s.scalar(select(ShoeRow.position).where(ShoeRow.table_id == table_id))) == 0
    assert _money_rows(sessions) == money
    _window(sessions, table_id, watched_since=since, bets={ann: {"player": 1_000}})
    _window(sessions, table_id, watched_since=None)
    _window(sessions, table_id, watched_since=since, bets={ann: {"tie": 1_000}})
    assert _rounds(sessions, table_id) == [(1, "settled"), (2, "settled"), (3, "betting")]


@ON_POSTGRESQL
@pytest.mark.slow
def test_a_lease_no_longer_renewed_does_not_watch(sessions):
    table_id, ann = _setup(sessions)
    since = _watch(sessions, ann, table_id)
    _window(sessions, table_id, watched_since=since + 60)  # its process stopped renewing a minute ago
    assert _rounds(sessions, table_id) == [(1, "betting")]


def test_lucky_draw_deals_no_hand_without_a_player_even_watched(sessions):
    table_id, ann = _setup(sessions, "lucky-draw")
    transaction(sessions, lambda s: seating.sit(s, table_id, ann, now=T0))
    since = _watch(sessions, ann, table_id)
    _window(sessions, table_id, watched_since=since)
    assert _rounds(sessions, table_id) == [(1, "betting")]


def test_the_sit_out_rule_counts_windows_dealt_without_bets(sessions):
    table_id, ann = _setup(sessions)
    transaction(sessions, lambda s: seating.sit(s, table_id, ann, now=T0))
    since = _watch(sessions, ann, table_id)
    for window in range(1, 6):
        _window(sessions, table_id, watched_since=since)
        seated = read(sessions, lambda s: s.scalar(select(func.count()).select_from(seating.Seat)))
        assert seated == (1 if window < 5 else 0), window
    assert [n for n, _ in _rounds(sessions, table_id)] == [1, 2, 3, 4, 5, 6]


@ON_POSTGRESQL
def test_the_dealer_takes_who_watches_from_its_leases(sessions):
    """The server's dealer is given the leases' ``alive_since`` (baccarat.server.live.cluster)."""
    table_id, ann = _setup(sessions)
    dealer = Dealer(sessions)
    dealer.watched_since = lambda: T0.timestamp() - 30
    closes = aware(_open(sessions, table_id).closes_at)
    dealer.deal_due(closes)
    assert _rounds(sessions, table_id) == [(1, "betting")]
    _watch(sessions, ann, table_id)
    closes = aware(_open(sessions, table_id).closes_at)
    dealer.deal_due(closes)
    assert _rounds(sessions, table_id) == [(1, "settled"), (2, "betting")]


def test_a_shoe_of_watched_empty_rounds_and_bets_verifies(sessions, tmp_path: Path):
    """The cards of a round nobody bet on are shown and recorded like any round's: the whole shoe's record
    verifies, and so does the export of a player who bet on some of its rounds."""
    table_id, ann = _setup(sessions, decks=1)
    since = _watch(sessions, ann, table_id)
    window = 0
    while read(sessions, lambda s: s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id,
                                                                   ShoeRow.number == 2))) is None:
        window += 1
        _window(sessions, table_id, watched_since=since, bets={ann: {"banker": 500}} if window % 3 == 0 else None)
    numbers = [n for n, _ in _rounds(sessions, table_id)]
    assert numbers == list(range(1, window + 2))
    with sessions() as s:
        record = records.shoe_record(s, table_id, 1)
        doc = views.json.loads(views.json.dumps(history.export(s, ann, now=T0 + timedelta(days=1))))
    assert len(record["rounds"]) == window and verifier.verify_shoe(record).ok
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == window // 3, report.problems


@pytest.mark.parametrize("game", ["mini", "ez"])
def test_both_punto_banco_games_deal_watched_windows(sessions, game):
    table_id, ann = _setup(sessions, game)
    since = _watch(sessions, ann, table_id)
    _window(sessions, table_id, watched_since=since)
    assert _rounds(sessions, table_id) == [(1, "settled"), (2, "betting")]


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_watcher_on_another_process_counts(database_url: str, serve):
    """Two processes on one PostgreSQL database: a page watching table 1 through the process that does not
    deal still has every window of that table dealt (its socket lease is in the database); table 2, which
    nobody watches, waits at round 1."""
    import json
    import time

    import httpx
    from websockets.sync.client import connect as ws_connect

    first = serve("--database", database_url, "--betting-seconds", "2").url
    second = serve("--database", database_url, "--betting-seconds", "2").url
    deadline = time.monotonic() + 20
    dealing: str | None = None
    while dealing is None and time.monotonic() < deadline:  # the election settles
        for base in (first, second):
            if httpx.get(f"{base}/api/server", timeout=5).json()["dealer"]:
                dealing = base
        time.sleep(0.3)
    assert dealing is not None
    other = second if dealing == first else first
    with httpx.Client(base_url=other, timeout=10) as client:
        client.post("/api/accounts", json={"username": "watcher", "password": "correct horse"})
        token = client.post("/api/sessions", json={"username": "watcher", "password": "correct horse"}).json()["token"]
    with ws_connect(other.replace("http", "ws") + "/ws/tables/1") as socket:
        socket.send(json.dumps({"type": "auth", "token": token}))
        json.loads(socket.recv(timeout=5))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            watched = httpx.get(f"{dealing}/api/tables/1", timeout=5).json()
            if watched["round_number"] >= 3:
                break
            time.sleep(0.5)
    assert watched["round_number"] >= 3, watched["round_number"]
    roads = httpx.get(f"{dealing}/api/tables/1/roads", timeout=5).json()
    assert roads["stats"]["hands"] >= 1
    assert httpx.get(f"{dealing}/api/tables/2", timeout=5).json()["round_number"] == 1  # nobody watches it
