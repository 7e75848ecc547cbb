"""Load on the table server: WebSocket players betting on many tables at once.

The server (``baccarat serve``) runs pinned to one core and this load generator to the other.
20 EZ tables with a 1-second betting window; 7 seated players per table bet, 3 more per table
watch.  Two phases on the same server, each bet timed from sending to its confirmation:

* paced: the seated players bet at random moments (Poisson arrivals, ``--rate`` bets a second in
  all, 300 by default), each bet on a wager not yet on the open round, as players do; the goal is
  at least 200 bet confirmations per second with p99 latency at most 150 ms (on SQLite);
* saturated: every seated player bets all five wagers as fast as the answers come, which finds
  the most the server confirms per second (latency there is mostly waiting in line).

    python benchmarks/server_load.py [--seconds 30] [--tables 20] [--rate 300] [--database URL] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import websockets

from baccarat.server.house import accounts, seed_keys
from baccarat.server.playing import seating, tables
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, sqlite_url, transaction
from baccarat.server.storage.migrate import upgrade

WAGERS = ("banker", "player", "tie", "dragon_7", "panda_8")


def prepare(url: str, table_count: int) -> list[tuple[int, str, bool]]:
    """Tables, accounts, seats and tokens, straight in the database: (table, token, bets?)."""
    upgrade(url)
    players: list[tuple[int, str, bool]] = []
    with connect(url) as sessions:
        for t in range(table_count):
            # no paced reveal or results pause: the load is on the bets, as it was measured before the timeline
            table_id = transaction(sessions, lambda s, t=t: tables.create_table(
                s, f"load-{t + 1}", "ez", betting_seconds=1.0, pace=Pace(0, 0, 0)).id)
            for p in range(10):
                name = f"t{t}p{p}"
                account = transaction(sessions, lambda s, n=name: accounts.register(s, n, "correct horse",
                                                                                   grant=10_000_000).id)
                if p < 7:
                    transaction(sessions, lambda s, a=account, tid=table_id: seating.sit(s, tid, a))
                token = transaction(sessions, lambda s, n=name: accounts.log_in(s, n, "correct horse"))
                players.append((table_id, token, p < 7))
    return players


async def saturating(socket: Any, token: str, until: float, latencies: list[float], counts: dict[str, int]
                     ) -> None:
    """On every round, all five wagers one after the other, each sent when the last is answered."""
    placed_round = None
    key = 0
    while time.monotonic() < until:
        state = json.loads(await socket.recv())
        current = state["table"]["round"] if state.get("type") == "state" else None
        if current is None or current["number"] == placed_round:
            continue
        placed_round = current["number"]
        for wager in WAGERS:
            key += 1
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "bet", "key": f"{token[:8]}-s-{key:08d}", "bets": {wager: 100}}))
            answer = json.loads(await socket.recv())
            while answer.get("type") == "state":
                answer = json.loads(await socket.recv())
            if answer["type"] != "ok":
                counts["refused"] += 1  # the window closed in the meantime
                break
            latencies.append(time.perf_counter() - sent)
            counts["ok"] += 1


async def paced(socket: Any, token: str, until: float, latencies: list[float], counts: dict[str, int],
                rate: float, rng: random.Random) -> None:
    """Bets at random moments (a Poisson process of ``rate`` a second), each on a wager not yet on
    the open round; a moment with no round open or every wager placed is skipped."""
    table: dict[str, Any] = {"round": None, "used": set()}
    answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def read() -> None:
        async for raw in socket:
            message = json.loads(raw)
            if message.get("type") != "state":
                await answers.put(message)
                continue
            current = message["table"]["round"]
            if current is None or table["round"] is None or current["number"] != table["round"]["number"]:
                table["round"], table["used"] = current, set()

    reader = asyncio.create_task(read())
    key = 0
    try:
        while time.monotonic() < until:
            await asyncio.sleep(rng.expovariate(rate))
            current, free = table["round"], [w for w in WAGERS if w not in table["used"]]
            if current is None or not free or datetime.fromisoformat(current["closes_at"]).timestamp() < time.time():
                counts["skipped"] += 1
                continue
            wager = rng.choice(free)
            table["used"].add(wager)
            key += 1
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "bet", "key": f"{token[:8]}-p-{key:08d}", "bets": {wager: 100}}))
            answer = await answers.get()
            if answer["type"] == "ok":
                latencies.append(time.perf_counter() - sent)
                counts["ok"] += 1
            else:
                counts["refused"] += 1  # the window closed while the bet travelled
    finally:
        reader.cancel()


async def player(base: str, table_id: int, token: str, bets: bool, until: float, latencies: list[float],
                 counts: dict[str, int], rate: float | None, rng: random.Random) -> None:
    """Watch the table; a seated player bets (paced at ``rate`` a second, or saturating when None)."""
    async with websockets.connect(f"{base}/ws/tables/{table_id}", max_size=2**20) as socket:
        await socket.send(json.dumps({"type": "auth", "token": token}))
        if not bets:
            while time.monotonic() < until:
                await asyncio.wait_for(socket.recv(), timeout=max(0.01, until - time.monotonic()))
        elif rate is None:
            await saturating(socket, token, until, latencies, counts)
        else:
            await paced(socket, token, until, latencies, counts, rate, rng)


async def load(base: str, players: list[tuple[int, str, bool]], seconds: float, rate: float | None
               ) -> tuple[list[float], dict[str, int]]:
    """Every player for ``seconds``; ``rate`` is the paced phase's bets a second over all seated players."""
    latencies: list[float] = []
    counts = {"ok": 0, "refused": 0, "skipped": 0}
    until = time.monotonic() + seconds
    rng = random.Random(2026)
    seated = sum(bets for _, _, bets in players)
    each = None if rate is None else rate / seated
    tasks = [asyncio.create_task(player(base, t, token, bets, until, latencies, counts, each, rng))
             for t, token, bets in players]
    await asyncio.wait(tasks, timeout=seconds + 10)
    for task in tasks:
        task.cancel()
    return latencies, counts


def summary(latencies: list[float], counts: dict[str, int], seconds: float) -> dict[str, float]:
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = statistics.quantiles(latencies, n=100)[98] * 1000 if len(latencies) >= 100 else float("nan")
    return {"confirmations_per_s": counts["ok"] / seconds, "p50_ms": p50, "p99_ms": p99,
            "refused": counts["refused"], "skipped": counts["skipped"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="length of each phase")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rate", type=float, default=300,
                        help="bets a second offered in the paced phase, over all seated players")
    parser.add_argument("--database", help="SQLAlchemy URL (default: SQLite in a temporary directory)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seed_key = secrets.token_bytes(32)  # this run's seed key: a new shoe's seed is stored sealed
    seed_keys.use(seed_key)
    os.environ["BACCARAT_SEED_KEY"] = base64.b64encode(seed_key).decode()  # and the server's
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-load-"))
    url = args.database or sqlite_url(data_dir)
    started = time.perf_counter()
    players = prepare(url, args.tables)
    print(f"prepared {args.tables} tables and {len(players)} players in {time.perf_counter() - started:.1f} s")
    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    command = [exe, "serve", "--port", "0", "--data-dir", str(data_dir), "--database", url]
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= 2 and shutil.which("taskset"):
        command = ["taskset", "-c", str(cores[0]), *command]
        os.sched_setaffinity(0, {cores[1]})
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    database = url.split("://")[0]
    results: dict[str, dict[str, float]] = {}
    try:
        assert server.stdout is not None
        match = re.search(r"ready at http://([0-9.:]+)", server.stdout.readline())
        assert match, "the server did not start"
        for phase, rate in (("paced", args.rate), ("saturated", None)):
            latencies, counts = asyncio.run(load(f"ws://{match.group(1)}", players, args.seconds, rate))
            results[phase] = figures = summary(latencies, counts, args.seconds)
            what = (f"Poisson arrivals at {args.rate:.0f} bets/s" if rate
                    else "every player betting all five wagers as fast as answers come")
            print(f"{database} {phase} ({what}): {figures['confirmations_per_s']:.0f} bet confirmations/s, "
                  f"latency p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms; "
                  f"{figures['refused']} refused as the window closed")
    finally:
        server.terminate()
        server.wait(timeout=30)
    paced = results["paced"]
    met = paced["confirmations_per_s"] >= 200 and paced["p99_ms"] <= 150
    if database == "sqlite":
        print(f"goal (SQLite, paced: >= 200 confirmations/s with p99 <= 150 ms): {'met' if met else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps({"database": database, "players": len(players), "tables": args.tables,
                                         "seconds": args.seconds, "rate": args.rate, **results,
                                         "goal_met": met}, indent=2) + "\n")


if __name__ == "__main__":
    main()
