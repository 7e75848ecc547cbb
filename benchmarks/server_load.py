"""Load on the table server: WebSocket players betting on many tables at once.

The server (``baccarat serve``) runs pinned to one core and this load generator to the other.
20 EZ tables with a 1-second betting window; 7 seated players per table bet, 3 more per table
watch.  Two phases on the same server, each bet timed from sending to its confirmation:

* paced: each seated player puts ``--per-round`` one-unit bets on every round, at random moments
  of the betting window, as players do; the goal is at least 200 bet confirmations per second
  with p99 latency at most 150 ms (on SQLite);
* saturated: every seated player bets all five wagers as fast as the answers come, which finds
  the most the server confirms per second (latency there is mostly waiting in line).

    python benchmarks/server_load.py [--seconds 30] [--tables 20] [--per-round 2] [--database URL] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import websockets

from baccarat.server import accounts, tables
from baccarat.server.db import connect, sqlite_url, transaction
from baccarat.server.migrate import upgrade

WAGERS = ("banker", "player", "tie", "dragon_7", "panda_8")


def prepare(url: str, table_count: int) -> list[tuple[int, str, bool]]:
    """Tables, accounts, seats and tokens, straight in the database: (table, token, bets?)."""
    upgrade(url)
    players: list[tuple[int, str, bool]] = []
    with connect(url) as sessions:
        for t in range(table_count):
            table_id = transaction(sessions, lambda s, t=t: tables.create_table(
                s, f"load-{t + 1}", "ez", betting_seconds=1.0).id)
            for p in range(10):
                name = f"t{t}p{p}"
                account = transaction(sessions, lambda s, n=name: accounts.register(s, n, "correct horse",
                                                                                   grant=10_000_000).id)
                if p < 7:
                    transaction(sessions, lambda s, a=account, tid=table_id: tables.sit(s, tid, a))
                token = transaction(sessions, lambda s, n=name: accounts.log_in(s, n, "correct horse"))
                players.append((table_id, token, p < 7))
    return players


async def player(base: str, table_id: int, token: str, bets: bool, until: float, latencies: list[float],
                 counts: dict[str, int], per_round: int, rng: random.Random) -> None:
    """Watch the table; if seated, put ``per_round`` one-unit bets on each round (all five wagers
    as fast as possible when ``per_round`` is 0), each timed from sending to its confirmation."""
    async with websockets.connect(f"{base}/ws/tables/{table_id}", max_size=2**20) as socket:
        await socket.send(json.dumps({"type": "auth", "token": token}))
        placed_round = None
        key = 0
        while time.monotonic() < until:
            state = json.loads(await socket.recv())
            if state.get("type") != "state" or not bets:
                continue
            current = state["table"]["round"]
            if current is None or current["number"] == placed_round:
                continue
            placed_round = current["number"]
            if per_round:  # paced: bets at random moments in the first 70% of the window left
                window = datetime.fromisoformat(current["closes_at"]).timestamp() - time.time()
                wagers = rng.sample(WAGERS, per_round)
                moments = sorted(rng.uniform(0, 0.7 * max(window, 0.0)) for _ in wagers)
            else:  # saturation: every wager at once, one after the other
                wagers, moments = list(WAGERS), [0.0] * len(WAGERS)
            started = time.monotonic()
            for wager, moment in zip(wagers, moments, strict=True):
                await asyncio.sleep(max(0.0, started + moment - time.monotonic()))
                key += 1
                sent = time.perf_counter()
                command = {"type": "bet", "key": f"{token[:8]}-{per_round}-{key:08d}", "bets": {wager: 100}}
                await socket.send(json.dumps(command))
                answer = json.loads(await socket.recv())
                while answer.get("type") == "state":
                    answer = json.loads(await socket.recv())
                if answer["type"] == "ok":
                    latencies.append(time.perf_counter() - sent)
                    counts["ok"] += 1
                else:
                    counts["refused"] += 1  # the window closed in the meantime
                    break


async def load(base: str, players: list[tuple[int, str, bool]], seconds: float, per_round: int
               ) -> tuple[list[float], dict[str, int]]:
    latencies: list[float] = []
    counts = {"ok": 0, "refused": 0}
    until = time.monotonic() + seconds
    rng = random.Random(2026)
    tasks = [asyncio.create_task(player(base, t, token, bets, until, latencies, counts, per_round, rng))
             for t, token, bets in players]
    await asyncio.wait(tasks, timeout=seconds + 10)
    for task in tasks:
        task.cancel()
    return latencies, counts


def summary(latencies: list[float], counts: dict[str, int], seconds: float) -> dict[str, float]:
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = statistics.quantiles(latencies, n=100)[98] * 1000 if len(latencies) >= 100 else float("nan")
    return {"confirmations_per_s": counts["ok"] / seconds, "p50_ms": p50, "p99_ms": p99,
            "refused": counts["refused"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="length of each phase")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--per-round", type=int, default=2, choices=range(1, 6),
                        help="bets per seated player per round in the paced phase")
    parser.add_argument("--database", help="SQLAlchemy URL (default: SQLite in a temporary directory)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
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
        for phase, per_round in (("paced", args.per_round), ("saturated", 0)):
            latencies, counts = asyncio.run(load(f"ws://{match.group(1)}", players, args.seconds, per_round))
            results[phase] = figures = summary(latencies, counts, args.seconds)
            what = (f"{args.per_round} bets per seated player per round" if per_round
                    else "every player betting all five wagers as fast as answers come")
            print(f"{database} {phase} ({what}): {figures['confirmations_per_s']:.0f} bet confirmations/s, "
                  f"latency p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms; "
                  f"{figures['refused']} refused as the window closed")
    finally:
        server.terminate()
        server.wait(timeout=30)
    paced = results["paced"]
    met = paced["confirmations_per_s"] >= 200 and paced["p99_ms"] <= 150
    print(f"goal (paced: >= 200 confirmations/s with p99 <= 150 ms): {'met' if met else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps({"database": database, "players": len(players), "tables": args.tables,
                                         "seconds": args.seconds, "per_round": args.per_round, **results,
                                         "goal_met": met}, indent=2) + "\n")


if __name__ == "__main__":
    main()
