"""Several server processes: ``baccarat serve --workers N`` (refused on SQLite), and table pushes
that come from PostgreSQL LISTEN/NOTIFY, across processes, with polling turned off."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from websockets.sync.client import connect as ws_connect

from baccarat.cli.common import EXIT_UNAVAILABLE
from baccarat.server.api import app
from baccarat.server.storage.db import connect

EXE = shutil.which("baccarat", path=str(Path(sys.executable).parent))


@pytest.mark.slow
def test_workers_are_refused_on_sqlite_in_words(tmp_path: Path):
    assert EXE is not None
    done = subprocess.run([EXE, "serve", "--workers", "2", "--data-dir", str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == EXIT_UNAVAILABLE
    assert "--workers 2 needs PostgreSQL" in done.stderr and "run without --workers" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_workers_share_the_address_and_one_of_them_deals(database_url: str, serve):
    base = serve("--workers", "2", "--database", database_url).url
    seen: dict[int, dict] = {}
    deadline = time.monotonic() + 30
    while len(seen) < 2 and time.monotonic() < deadline:
        with httpx.Client(base_url=base, timeout=5) as client:  # a new connection each time
            state = client.get("/api/server").json()
        seen[state["process"]] = state
    assert len(seen) == 2, seen  # both processes answer
    time.sleep(0.6)  # the election settles (followers try every 0.25 s)
    dealers = set()
    for _ in range(40):
        with httpx.Client(base_url=base, timeout=5) as client:
            state = client.get("/api/server").json()
        if state["dealer"]:
            dealers.add(state["process"])
        assert state["pushes"] == "notify"
    assert len(dealers) == 1  # exactly one of them deals


def _socket_user(base: str, name: str) -> str:
    with httpx.Client(base_url=base, timeout=10) as client:
        client.post("/api/accounts", json={"username": name, "password": "correct horse"})
        return client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_pushes_come_from_notifications_across_processes_with_polling_off(database_url: str, serve):
    no_polling = {"BACCARAT_RESYNC_SECONDS": "3600"}  # a table is read only when notified (or at its timeline)
    base_a = serve("--database", database_url, "--betting-seconds", "600", env=no_polling).url
    base_b = serve("--database", database_url, "--betting-seconds", "600", env=no_polling).url
    watcher, bettor = _socket_user(base_a, "watcher"), _socket_user(base_b, "bettor")
    with ws_connect(base_a.replace("http", "ws") + "/ws/tables/2") as socket:
        socket.send(json.dumps({"type": "auth", "token": watcher}))
        state = json.loads(socket.recv(timeout=5))
        assert state["table"]["bettors"] == 0
        # a change written without a notification is not seen: nothing polls
        with connect(database_url) as sessions, sessions.begin() as s:
            s.execute(text("INSERT INTO announcements (table_id, at, kind, text) VALUES (2, :at, 'seated', "
                           "'a quiet change')"), {"at": datetime.now(UTC)})
        with pytest.raises(TimeoutError):
            socket.recv(timeout=1.5)
        # a bet through the other process: its commit notifies, this process pushes at once
        started = time.monotonic()
        with httpx.Client(base_url=base_b, timeout=10) as client:
            placed = client.post("/api/tables/2/bets", json={"bets": {"player": 300}},
                                 headers={"Authorization": f"Bearer {bettor}", "Idempotency-Key": "notify-0001"})
        assert placed.status_code == 201, placed.text  # no seat needed on punto banco
        pushed = json.loads(socket.recv(timeout=2))
        assert time.monotonic() - started < 2
        assert pushed["table"]["bettors"] == 1 and pushed["table"]["spots"]["player"]["total"] == 300
        assert "a quiet change" in [a["text"] for a in pushed["table"]["announcements"]]  # read now, with it


@pytest.mark.slow
def test_a_served_process_freezes_its_start_up_objects_and_collects_less_often():
    """``baccarat serve`` (one process or each of ``--workers``) sets the interpreter up for thousands of
    sockets: its start-up objects frozen out of collections, higher thresholds, threads taking turns every
    millisecond (run in a child process: freezing this test process's objects would keep its garbage)."""
    code = ("import gc, sys; from baccarat.server.api import app; before = gc.get_freeze_count(); "
            "app.tune_for_serving(); print(before, gc.get_freeze_count(), sys.getswitchinterval(), "
            "*gc.get_threshold())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    before, frozen = map(int, out[:2])
    switch, thresholds = float(out[2]), tuple(map(int, out[3:]))
    assert before == 0 and frozen > 10_000 and switch == app.SWITCH_INTERVAL < 0.005
    assert thresholds == app.COLLECTOR_THRESHOLDS and thresholds[0] > 700
