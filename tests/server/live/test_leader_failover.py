"""Two server processes on one PostgreSQL database: bets go through both, the dealing process is
SIGKILLed at a random moment (12 times, restarted each time), and the other deals within 1 s at
the median (10 s at most).
Afterwards every round was dealt once (one settlement movement each, the shoe's cursor moving
on by exactly the cards of each round), every acknowledged bet is settled, the ledger balances."""

from __future__ import annotations

import itertools
import json
import random
import signal
import statistics
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select, text, update

from baccarat.server.house import wallet
from baccarat.server.storage.db import connect
from baccarat.server.storage.models import Bet, GameTable, IdempotentRequest, LedgerTransaction, Round, Settlement

pytestmark = pytest.mark.slow  # two real servers, the dealing one SIGKILLed and restarted 12 times
#: (the reliability spec's 25 crash-restart cycles a CI run are test_dealer_crash_loop.py's; these add failovers)
CYCLES = 12
LONG = True  #: started first in the system tier (tests/conftest.py)
PLAYERS = 6
TABLE = 2  # ez-1: punto banco, so players bet seated or not
FAILOVER = 1.0  #: seconds within which another process deals, at the median of the kills
FAILOVER_AT_MOST = 10.0  #: ... and at each of them


def _dealer(url: str) -> int | None:
    """The pid named by the connection holding the dealer's advisory lock (pg_stat_activity)."""
    with connect(url) as sessions, sessions() as s:
        name = s.scalar(text("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                             "WHERE l.locktype = 'advisory' AND l.granted"))
    return int(name.split("pid=")[1]) if name else None


def _wait_for_dealer(base: str, within: float) -> float:
    """Seconds until the process at ``base`` says it deals (fails after ``within``)."""
    start = time.monotonic()
    with httpx.Client(base_url=base, timeout=within) as client:
        while time.monotonic() - start < within:
            try:
                if client.get("/api/server").json()["dealer"]:
                    return time.monotonic() - start
            except httpx.TimeoutException:
                continue  # a slow answer from a busy process: ask again while time is left
            time.sleep(0.05)
    pytest.fail(f"no process took over the dealing within {within} s")


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_dealer_sigkilled_12_times_another_deals_and_nothing_is_dealt_twice(database_url: str, tmp_path: Path,
                                                                                serve):
    rng = random.Random(2027)

    def start() -> tuple[subprocess.Popen[str], str]:
        server = serve("--database", database_url, "--betting-seconds", "0.5")
        return server.process, server.url
    servers = [start(), start()]
    # the table at a quick pace (rounds of about 2 s, not 9.5): more deals for the kills to fall among, and a
    # cycle's load meets a betting window; read from the table's row at each deal, as an operator's change is
    with connect(database_url) as sessions, sessions.begin() as s:
        s.execute(update(GameTable).where(GameTable.id == TABLE).values(
            no_more_bets_seconds=0.2, card_seconds=0.1, results_seconds=0.5))
    tokens = []
    with httpx.Client(base_url=servers[0][1], timeout=10) as client:
        for i in range(PLAYERS):
            client.post("/api/accounts", json={"username": f"player{i}", "password": "correct horse"})
            token = client.post("/api/sessions", json={"username": f"player{i}", "password": "correct horse"}
                                ).json()["token"]
            if i % 2 == 0:  # half of them seated, half betting without a seat
                client.post(f"/api/tables/{TABLE}/seats", json={}, headers={"Authorization": f"Bearer {token}"})
            tokens.append(token)
    acknowledged: dict[str, dict] = {}
    answered_by: Counter[str] = Counter()
    takeovers = []
    sent = 0
    lock = threading.Lock()
    for cycle in range(CYCLES):
        stop = threading.Event()
        bases = [base for _, base in servers]

        def load(player: int, stop_event: threading.Event = stop, round_: int = cycle,
                 addresses: list[str] = bases) -> None:
            nonlocal sent
            auth = {"Authorization": f"Bearer {tokens[player]}"}
            clients = [httpx.Client(base_url=address, timeout=5) for address in addresses]
            turn = player
            while not stop_event.is_set():
                with lock:
                    sent += 1
                    key = f"c{round_}-p{player}-{sent}"
                turn += 1
                client = clients[turn % 2]  # through both processes in turn
                try:
                    answer = client.post(f"/api/tables/{TABLE}/bets", json={"bets": {"banker": 100}},
                                         headers={**auth, "Idempotency-Key": key})
                except httpx.HTTPError:
                    continue  # the process died under us: this bet was never acknowledged
                if answer.status_code == 201:
                    acknowledged[key] = answer.json()
                    answered_by[str(client.base_url)] += 1
                else:
                    assert answer.status_code in (409, 422), answer.text  # closed, at the maximum
                time.sleep(0.02)
            for each in clients:
                each.close()

        workers = [threading.Thread(target=load, args=(p,)) for p in range(PLAYERS)]
        for worker in workers:
            worker.start()
        time.sleep(rng.uniform(0.3, 1.5))
        # a kill with a bet of this cycle acknowledged (at the default pace a cycle's load could miss every
        # window: one run took 5 bets in all), waiting at most a few rounds
        waited = time.monotonic() + 10
        while not any(key.startswith(f"c{cycle}-") for key in list(acknowledged)) and time.monotonic() < waited:
            time.sleep(0.05)
        pid = _dealer(database_url)
        for _ in range(40):  # just restarted: the dealer's lock may be between two processes
            if pid in (process.pid for process, _ in servers):
                break
            time.sleep(0.05)
            pid = _dealer(database_url)
        leader = next(i for i, (process, _) in enumerate(servers) if process.pid == pid)
        servers[leader][0].send_signal(signal.SIGKILL)
        servers[leader][0].wait()
        takeovers.append(_wait_for_dealer(servers[1 - leader][1], FAILOVER_AT_MOST))
        stop.set()
        for worker in workers:
            worker.join()
        servers[leader] = start()
    time.sleep(3)  # the last rounds are dealt and their results shown
    for process, _ in servers:
        process.terminate()
        process.wait(timeout=30)

    assert len(acknowledged) >= CYCLES and len(answered_by) >= 3  # bets went through both processes, and restarts
    # a loaded machine can keep the survivor from answering for a while: the bound on each is generous, and the
    # median holds the usual pace
    assert statistics.median(takeovers) < FAILOVER and max(takeovers) < FAILOVER_AT_MOST, takeovers
    with connect(database_url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
        assert set(acknowledged) <= set(s.scalars(select(IdempotentRequest.key)))  # every acknowledged bet stored
        rounds = s.scalars(select(Round).where(Round.table_id == TABLE).order_by(Round.number)).all()
        settled = [r for r in rounds if r.status == "settled"]
        assert len(settled) >= 3
        # each round dealt once: one settlement movement per settled round, never two
        memos = Counter(s.scalars(select(LedgerTransaction.memo).where(LedgerTransaction.kind == "settle")))
        assert all(count == 1 for count in memos.values())
        assert set(memos) == {f"table ez-1 round {r.number}" for r in settled}
        # ... and the shoe moved on by exactly each round's cards (a round dealt twice would skip cards)
        for before, after in itertools.pairwise(settled):
            if before.shoe_id == after.shoe_id and after.number == before.number + 1:
                assert after.first_card == before.first_card + len(json.loads(before.result)["cards"])
        # every acknowledged bet is settled (all rounds but the open one are over)
        open_rounds = [r.id for r in rounds if r.status == "betting"]
        assert len(open_rounds) == 1 and all(r.status in ("settled", "no_action", "betting") for r in rounds)
        unsettled = s.scalar(select(func.count(Bet.id)).outerjoin(Settlement, Settlement.bet_id == Bet.id)
                             .where(Settlement.bet_id.is_(None), Bet.round_id.not_in(open_rounds)))
        assert unsettled == 0
        for answer in acknowledged.values():
            number = answer["round"]
            assert number in {r.number for r in settled} or number == rounds[-1].number
