"""Readiness enforced across a service (issue 40 item 8): two ``baccarat serve`` processes on one PostgreSQL
database, the schema taken down under them by ``baccarat migrate down`` (as a rollback does) and up again by
``baccarat migrate up`` (as an upgrade does).  While the schema is not theirs both refuse writes (503
``server.upgrading`` with ``Retry-After``) within a few seconds, answer reads and ``/ready`` 503
``ready.migrations``, and each says so once in its log; once it is theirs again both take bets, the bets taken
before are settled, and the ledger balances.  (The unit of it, one process on each database on the test's time, is
``tests/server/api/test_ready.py``.)"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.server.house import wallet
from baccarat.server.storage.db import connect
from baccarat.server.storage.migrate import code_heads

from ... import server_kit

pytestmark = pytest.mark.slow  # two real servers and the migrate command as a process
TABLE = 2  # ez-1: punto banco, a bet needs no seat
WITHIN = 5.0  #: seconds within which every process has seen the schema change (it reads it once a second)
ROUND = 30.0  #: seconds within which a bet finds a betting window (a round is about 10 s; a busy machine is slow)


def _migrate(database_url: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([server_kit.EXE, "migrate", *arguments, "--database", database_url],
                          capture_output=True, text=True, timeout=120)


def _until(condition: Callable[[], Any], within: float = WITHIN) -> Any:
    deadline = time.monotonic() + within
    while not (answer := condition()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return answer


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_two_processes_take_no_write_on_a_schema_moved_under_them_and_bets_again_once_it_is_theirs(
        database_url: str, serve: Callable[..., server_kit.Served], tmp_path: Path):
    servers = [serve("--database", database_url, "--betting-seconds", "2") for _ in range(2)]
    clients = [httpx.Client(base_url=server.url, timeout=10) for server in servers]
    credentials = {"username": "rolling", "password": "correct horse"}
    assert clients[0].post("/api/accounts", json=credentials).status_code == 201
    auth = {"Authorization": f"Bearer {clients[0].post('/api/sessions', json=credentials).json()['token']}"}
    keys = iter(f"rolling-bet-{n:04d}" for n in range(10_000))

    def bet(client: httpx.Client) -> httpx.Response:
        return client.post(f"/api/tables/{TABLE}/bets", json={"bets": {"banker": 100}},
                           headers={**auth, "Idempotency-Key": next(keys)})

    def placed(client: httpx.Client) -> bool:  # a bet taken, or refused only for the moment (between windows)
        answer = bet(client)
        return answer.status_code == 201 or (answer.status_code == 409 and answer.json()["code"] != "bet.balance")

    try:
        # a bet taken by each (a round is about 10 s, its betting window 2 s of it)
        assert all(_until(lambda c=client: bet(c).status_code == 201, within=ROUND) for client in clients)
        rolled = _migrate(database_url, "down", "--to", "0018", "--yes")
        assert rolled.returncode == 0, rolled.stdout + rolled.stderr
        for client in clients:
            refused = _until(lambda c=client: (a := bet(c)).status_code == 503 and a)
            assert refused and refused.json()["code"] == "server.upgrading", refused
            assert refused.headers["retry-after"] == "5"
            assert client.get("/api/me", headers=auth).status_code == 200  # reads go on
            ready = client.get("/ready")
            assert ready.status_code == 503 and ready.json()["code"] == "ready.migrations", ready.text
        assert _migrate(database_url, "status").returncode == 3
        upgraded = _migrate(database_url, "up")
        assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
        for client in clients:
            assert _until(lambda c=client: placed(c), within=ROUND)
            assert _until(lambda c=client: c.get("/ready").status_code == 200)
        assert _until(lambda: clients[0].get("/api/history", headers=auth).json(), within=20)  # dealt again
    finally:
        for client in clients:
            client.close()
        for server in servers:
            server.stop()
    for server in servers:
        log = server.stderr()
        # said once, and once that it is theirs again (the access lines of /ready name the code too)
        assert log.count("no bet, deal or other change is taken") == 1, log[-3000:]
        assert log.count("writes are taken") == 1, log[-3000:]
    with connect(database_url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
    assert max(code_heads()) > "0018"
