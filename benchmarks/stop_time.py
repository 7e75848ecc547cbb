"""How long ``baccarat serve`` takes to stop on SIGTERM: idle, and under load (issue 40 item 9).

Each round starts a server on SQLite (the tables, accounts and tokens of :mod:`server_load`, made once),
waits until it is ready, and either leaves it idle for 2 s or puts every player of ``--tables`` tables
on it (table sockets; the seated ones betting as fast as answers come, as ``server_load``'s saturated
phase, over HTTP) for ``--load-seconds``; then it sends SIGTERM and times the process until it has exited.  Idle
and loaded rounds alternate; the figures are medians and ranges.

    python benchmarks/stop_time.py [--rounds 5] [--tables 10] [--load-seconds 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from server_load import prepare  # benchmarks/server_load.py

from baccarat.server.house import seed_keys
from baccarat.server.storage.db import sqlite_url


async def _bettor(http: str, table: int, token: str, counts: dict[str, int]) -> None:
    """Bets over HTTP as fast as answers come (each with its own key), as a busy client would."""
    async with httpx.AsyncClient(base_url=http, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        n = 0
        while True:
            n += 1
            answer = await client.post(f"/api/tables/{table}/bets", json={"bets": {"player": 100}},
                                       headers={"Idempotency-Key": f"{token[:8]}-stop-{n:08d}"})
            counts["ok" if answer.status_code == 201 else "refused"] += 1


async def _watcher(base: str, table: int, token: str) -> None:
    async with websockets.connect(f"{base}/ws/tables/{table}", max_size=2**20) as socket:
        await socket.send(json.dumps({"type": "auth", "token": token}))
        async for _ in socket:
            pass


async def _loaded(base: str, players: list[tuple[int, str, bool]], server: subprocess.Popen[str],
                  seconds: float) -> float:
    """Every player on the server for ``seconds`` (a table socket each; the seated ones also betting over
    HTTP without pause), then SIGTERM while they still play: seconds until it exits."""
    counts = {"ok": 0, "refused": 0}
    http = base.replace("ws://", "http://")
    tasks = [asyncio.create_task(_watcher(base, t, token)) for t, token, _ in players]
    tasks += [asyncio.create_task(_bettor(http, t, token, counts)) for t, token, bets in players if bets]
    await asyncio.sleep(seconds)
    sent = time.perf_counter()
    server.send_signal(signal.SIGTERM)
    while server.poll() is None:
        await asyncio.sleep(0.005)
    stopped = time.perf_counter() - sent
    for task in tasks:
        task.cancel()
    failures = [r for r in await asyncio.gather(*tasks, return_exceptions=True)
                if isinstance(r, Exception) and not isinstance(r, asyncio.CancelledError)]
    if counts["ok"] + counts["refused"] == 0:  # not one bet answered: the load never reached the server
        raise SystemExit(f"no bet was answered: {failures[:1]!r}")
    return stopped


def one(command: list[str], players: list[tuple[int, str, bool]], loaded: bool, seconds: float) -> float:
    """One start and stop; the stop's seconds."""
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    match = re.search(r"ready at http://([0-9.:]+)", server.stdout.readline())
    if not match:
        server.kill()
        raise SystemExit("the server did not start")
    if loaded:
        return asyncio.run(_loaded(f"ws://{match.group(1)}", players, server, seconds))
    time.sleep(2)
    sent = time.perf_counter()
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    return time.perf_counter() - sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--load-seconds", type=float, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seed_key = secrets.token_bytes(32)
    seed_keys.use(seed_key)
    os.environ["BACCARAT_SEED_KEY"] = base64.b64encode(seed_key).decode()
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-stop-"))
    url = sqlite_url(data_dir)
    players = prepare(url, args.tables)
    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    command = [exe, "serve", "--port", "0", "--data-dir", str(data_dir), "--database", url]
    idle: list[float] = []
    loaded: list[float] = []
    for _ in range(args.rounds):
        idle.append(one(command, players, False, args.load_seconds))
        loaded.append(one(command, players, True, args.load_seconds))
    figures = {name: {"median_s": statistics.median(values), "min_s": min(values), "max_s": max(values),
                      "runs_s": values} for name, values in (("idle", idle), ("loaded", loaded))}
    for name, f in figures.items():
        what = "idle" if name == "idle" else f"under load ({len(players)} sockets, {args.tables * 7} betting)"
        print(f"SIGTERM to exit, {what}: {f['median_s']:.2f} s [{f['min_s']:.2f}-{f['max_s']:.2f}] "
              f"over {args.rounds} rounds")
    if args.json:
        args.json.write_text(json.dumps({"tables": args.tables, "load_seconds": args.load_seconds, **figures,
                                         "load_average": os.getloadavg()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
