"""Crash recovery: SIGKILL the real server at random moments while players bet, restart it, and
check the books: no ledger drift, no acknowledged bet lost, no bet settled twice, every closed
round resolved.  25 cycles on SQLite (the reliability spec's figure)."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from baccarat.server.house import wallet
from baccarat.server.storage.db import connect, sqlite_url
from baccarat.server.storage.models import Bet, GameTable, IdempotentRequest, Round, Settlement

pytestmark = pytest.mark.slow  # a real server killed and restarted 25 times
LONG = True  #: started first in the system tier (tests/conftest.py)
CYCLES = 25
PLAYERS = 4


def test_sigkill_at_random_moments_loses_nothing(tmp_path: Path, serve):
    rng = random.Random(2026)
    server = serve("--betting-seconds", "0.3")
    base = server.url
    tokens = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for i in range(PLAYERS):
            client.post("/api/accounts", json={"username": f"player{i}", "password": "correct horse"})
            token = client.post("/api/sessions", json={"username": f"player{i}", "password": "correct horse"}
                                ).json()["token"]
            client.post("/api/tables/2/seats", json={}, headers={"Authorization": f"Bearer {token}"})
            tokens.append(token)
    acknowledged: dict[str, dict] = {}  # idempotency key -> the server's answer
    sent = 0
    for cycle in range(CYCLES):
        stop, answering = threading.Event(), threading.Event()

        def load(player: int, address: str = base, stop_event: threading.Event = stop, round_: int = cycle,
                 answered: threading.Event = answering) -> None:
            nonlocal sent
            auth = {"Authorization": f"Bearer {tokens[player]}"}
            with httpx.Client(base_url=address, timeout=5) as client:
                while not stop_event.is_set():
                    sent += 1
                    key = f"c{round_}-p{player}-{sent}"
                    try:
                        answer = client.post("/api/tables/2/bets", json={"bets": {"banker": 100}},
                                             headers={**auth, "Idempotency-Key": key})
                    except httpx.HTTPError:
                        continue  # the server died under us: this bet was never acknowledged
                    answered.set()
                    if answer.status_code == 201:
                        acknowledged[key] = answer.json()
                    else:
                        assert answer.status_code in (409, 422), answer.text  # already bet / closed
                    time.sleep(0.02)

        workers = [threading.Thread(target=load, args=(p,)) for p in range(PLAYERS)]
        for worker in workers:
            worker.start()
        # the kill falls at a random moment of the betting, once the new process answers bets (a new process's
        # first answer took over 1.2 s on a slow machine, and every bet of every cycle was then cut off unanswered)
        assert answering.wait(30), "the restarted server answered no bet in 30 s"
        time.sleep(rng.uniform(0.2, 1.2))
        server.kill()  # SIGKILL
        stop.set()
        for worker in workers:
            worker.join()
        restarted_at = datetime.now(UTC)
        server = serve("--betting-seconds", "0.3")
        base = server.url
    time.sleep(1.5)  # the restarted dealer settles every round whose window has closed
    server.stop()

    assert len(acknowledged) >= CYCLES  # the load really placed bets
    with connect(sqlite_url(tmp_path)) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
        keys = set(s.scalars(select(IdempotentRequest.key)))
        assert set(acknowledged) <= keys  # every acknowledged bet was durably stored
        bets = s.scalar(select(func.count(Bet.id)))
        staked = s.scalar(select(func.sum(Bet.amount)))
        assert staked >= 100 * len(acknowledged)  # chips on one spot add up to one bet
        settled = s.scalar(select(func.count(Settlement.bet_id)))
        open_bets = s.scalar(select(func.count(Bet.id)).join(Round, Round.id == Bet.round_id)
                             .where(Round.status == "betting"))
        assert settled + open_bets == bets  # each bet settled once, or still on the open round
        still_open = s.scalars(select(Round.closes_at).where(Round.status == "betting")).all()
        assert len(still_open) == s.scalar(select(func.count(GameTable.id)))  # one open round per table...
        for closes_at in still_open:  # ...opened after the last restart: every older round was resolved
            assert (closes_at if closes_at.tzinfo else closes_at.replace(tzinfo=UTC)) > restarted_at
