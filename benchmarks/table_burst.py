"""A table for thousands: N WebSocket bettors (2,000 by default) on ONE EZ table, their bets in the
last seconds of the betting window.

The server (``baccarat serve``, ``--workers`` processes) is pinned to the first core and this load
generator to the second (``taskset``).  A PostgreSQL on this machine is pinned to the second core too
(its server process and every backend, which inherit it; ``--no-pin-postgres`` leaves it to the
scheduler, which also puts its backends on the server's core): the server's core is then the server's
alone, as where the database has cores of its own.  Bettors have no seats (punto banco takes any
player's bets).  Two phases on the same server:

* burst: a 10 s window; each bettor places one bet, sent at a moment drawn uniformly from the last
  ``--burst`` seconds (3) before the close.  Reported: bets confirmed, refused as late (sent after
  the close) and refused otherwise, p50/p99 from send to confirmation, and the time from the last
  card (and from the result's moment, one card pause later) to the last bettor's settlement push.
  Goal: every bet sent before the close confirmed, p99 <= 250 ms, every bettor's settlement pushed
  within 1 s of the last card.  Also reported: the state pushes sent to every socket while the bets came, and
  their size.  ``--bursts N`` measures N bursts, one round each, and reports their medians: a burst's p99 is
  that of its slowest few bets, and one pause of the server's (a push to every socket, a collection) in its
  3 s moves it much;
* saturated: every bettor bets chips of 1.00 back to back (the next sent when the last is answered)
  for ``--saturate-seconds`` (5) of a window: the most confirmations a second the server gives.

    python benchmarks/table_burst.py [--bettors 2000] [--bursts 1] [--database URL] [--workers N] [--json out.json]

A PostgreSQL ``--database`` must be an empty database (it is migrated here).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import math
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
from sqlalchemy import text

from baccarat.server.house import accounts, seed_keys, wallet
from baccarat.server.playing import tables
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, sqlite_url, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import Account, Wallet

GRANT = 10_000_000


def prepare(url: str, bettors: int, window: float) -> tuple[int, list[str]]:
    """One EZ table and ``bettors`` accounts with session tokens, written in bulk (no password hashing:
    the tokens are made directly, as a login would)."""
    upgrade(url)
    with connect(url) as sessions:
        table_id = transaction(sessions, lambda s: tables.create_table(
            s, "burst-ez", "ez", betting_seconds=window, pace=Pace(1.0, 0.6, 2.0)).id)

        def work(s: Any) -> list[str]:
            rows = [Account(username=f"bettor{i}", login=f"bettor{i}", password_hash="!", role="player")
                    for i in range(bettors)]
            s.add_all(rows)
            s.flush()
            s.add_all([Wallet(account_id=row.id, balance=0) for row in rows])
            s.flush()
            wallet.transfer(s, "grant", {wallet.CASHIER: -GRANT * bettors,
                                         **{wallet.wallet_account(row.id): GRANT for row in rows}})
            return [accounts._new_token(s, row.id) for row in rows]
        return table_id, transaction(sessions, work)


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def pin_postgres(url: str, cores: set[int]) -> str:
    """Pin the PostgreSQL server at ``url`` (its main process and every process it started: the backends
    started later inherit it) to ``cores``; what was done, in words."""
    with connect(url) as sessions, sessions() as s:
        backend = s.scalar(text("SELECT pg_backend_pid()"))
    try:
        main = _parent(backend)
        if not Path(f"/proc/{main}/comm").read_text().startswith("postgres"):  # a pid of another machine's
            return "PostgreSQL not pinned (it runs on another machine)"
        family = [main, *(int(stat.parent.name) for stat in Path("/proc").glob("[0-9]*/stat")
                          if _safe_parent(int(stat.parent.name)) == main)]
        for pid in family:
            os.sched_setaffinity(pid, cores)
    except (OSError, ValueError) as error:  # another machine's, or another user's without the right
        return f"PostgreSQL not pinned ({error})"
    return f"PostgreSQL (process {main} and {len(family) - 1} others) pinned to core(s) {sorted(cores)}"


def _safe_parent(pid: int) -> int | None:
    try:
        return _parent(pid)
    except OSError:  # the process ended meanwhile
        return None


def _cpu(pid: int) -> float:
    """CPU seconds used so far by process ``pid`` and its children (the server's workers)."""
    total = 0.0
    for child in [pid, *(int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]:
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")
    return total


def _named_cpu(name: str) -> float:
    """CPU seconds used so far by every process whose command is ``name`` (PostgreSQL's backends)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        if text[text.index("(") + 1:text.rindex(")")] == name:
            fields = text.rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")
    return total


def _machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, every core together (``/proc/stat``)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK"), sum(ticks) / os.sysconf("SC_CLK_TCK")


def _shares(before: tuple[float, ...], args: argparse.Namespace) -> dict[str, float]:
    """Cores used since ``before`` (from :func:`_usage`) by the server, PostgreSQL, this load generator and
    the whole machine, per second of wall time."""
    after = _usage(args)
    wall = after[0] - before[0]
    server, postgres, generator, busy = ((a - b) / wall for a, b in zip(after[1:5], before[1:5], strict=True))
    return {"server_cores": server, "postgres_cores": postgres, "load_generator_cores": generator,
            "machine_cores_busy": busy, "machine_cores": (after[5] - before[5]) / wall}


def _usage(args: argparse.Namespace) -> tuple[float, ...]:
    busy, every = _machine_busy()
    return (time.perf_counter(), _cpu(args.server_pid), _named_cpu("postgres"), time.process_time(), busy, every)


def _moments(url: str, table_id: int, number: int) -> tuple[float, float]:
    """When the round's last card and its result were shown (epoch seconds), as the server stored them."""
    from sqlalchemy import select

    from baccarat.server.storage.models import Round, aware

    with connect(url) as sessions, sessions() as s:
        played = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number))
        assert played is not None and played.result_at is not None, "the round was not dealt"
        deal = json.loads(played.result or "{}").get("deal", [])
        return datetime.fromisoformat(deal[-1]["at"]).timestamp(), aware(played.result_at).timestamp()


class Bettor:
    """One socket: reads every frame; answers resolve the command awaited; states are looked at cheaply
    (only the player's own part, at the end of the frame, is decoded)."""

    def __init__(self, socket: Any, index: int) -> None:
        self.socket, self.index = socket, index
        self.answer: asyncio.Future[dict[str, Any]] | None = None
        self.round: int | None = None  #: the round of the bet to be settled
        self.settled_at: float | None = None
        self.table: dict[str, Any] | None = None  #: the last table view (bettor 0 only)
        self.pushes: list[tuple[float, int]] = []  #: (when, bytes) of each state push received (bettor 0 only)

    async def read(self) -> None:
        async for raw in self.socket:
            if raw.startswith('{"type": "state"'):
                if self.index == 0:
                    self.pushes.append((time.time(), len(raw)))
                    self.table = json.loads(raw)["table"]
                if self.round is not None and self.settled_at is None:
                    you = json.loads(raw[raw.rindex('"you": ') + 7:-1])
                    if you["round"] == self.round and you["settlement"] is not None:
                        self.settled_at = time.time()
                continue
            if self.answer is not None and not self.answer.done():
                self.answer.set_result(json.loads(raw))

    async def bet(self, number: int, bets: dict[str, int], key: str) -> tuple[dict[str, Any], float]:
        self.answer = asyncio.get_running_loop().create_future()
        sent = time.perf_counter()
        await self.socket.send(json.dumps({"type": "bet", "key": key, "bets": bets, "round": number}))
        answer = await self.answer
        return answer, time.perf_counter() - sent


async def _open(base: str, table_id: int, tokens: list[str]) -> list[Bettor]:
    gate = asyncio.Semaphore(100)  # connections opened at most 100 at a time

    async def one(index: int, token: str) -> Bettor:
        async with gate:
            socket = await websockets.connect(f"{base}/ws/tables/{table_id}", max_size=2**22, open_timeout=60)
            # as the page: the table's wagers in the first push only (a server before them ignores it)
            await socket.send(json.dumps({"type": "auth", "token": token, "wagers": "once"}))
            first = await socket.recv()
            bettor = Bettor(socket, index)
            if index == 0:
                bettor.table = json.loads(first)["table"]
            return bettor
    return await asyncio.gather(*(one(i, token) for i, token in enumerate(tokens)))


async def _next_window(watcher: Bettor, lead: float) -> tuple[int, float]:
    """The number and close (epoch seconds) of a round open for at least ``lead`` more seconds."""
    while True:
        table = watcher.table or {}
        current = table.get("round")
        opened = current is not None and (current.get("opens_at") is None or
                                          datetime.fromisoformat(current["opens_at"]).timestamp() <= time.time())
        if opened:
            closes = datetime.fromisoformat(current["closes_at"]).timestamp()
            if closes - time.time() >= lead:
                return current["number"], closes
        await asyncio.sleep(0.05)


async def burst(bettors: list[Bettor], seconds: float, rng: random.Random, args: argparse.Namespace
                ) -> dict[str, Any]:
    number, closes = await _next_window(bettors[0], seconds + 0.5)
    await asyncio.sleep(max(0.0, closes - seconds - time.time()))  # the first bet's moment
    if args.profile:
        subprocess.Popen(["py-spy", "record", "--subprocesses", "--nonblocking", "-o", str(args.profile),
                          "-f", args.profile_format, "--gil", "--rate", str(args.profile_rate),
                          "--duration", str(round(seconds + 1)),
                          "--pid", str(args.server_pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latencies: list[float] = []
    timed: list[tuple[float, float]] = []  # (seconds into the burst when sent, seconds to the confirmation)
    cpu = _cpu(args.server_pid), time.process_time(), time.perf_counter(), _named_cpu("postgres")
    counts = {"sent": 0, "confirmed": 0, "late": 0, "refused_before_close": 0, "sent_after_close": 0}

    async def one(bettor: Bettor) -> None:
        bettor.round = bettor.settled_at = None  # the last burst's settlement is not this one's
        at = closes - seconds + rng.random() * seconds
        await asyncio.sleep(max(0.0, at - time.time()))
        counts["sent"] += 1
        sent_at = time.time()
        before_close = sent_at < closes
        counts["sent_after_close"] += not before_close
        answer, took = await bettor.bet(number, {rng.choice(("banker", "player")): 100},
                                        f"burst-{number}-{bettor.index:06d}")
        if answer["type"] == "ok":
            counts["confirmed"] += 1
            latencies.append(took)
            timed.append((sent_at - (closes - seconds), took))
            bettor.round = number
        elif "closed" in answer.get("detail", "") and not before_close:
            counts["late"] += 1
        else:
            counts["refused_before_close"] += 1
            print(f"refused, sent {(closes - sent_at) * 1000:.0f} ms before the close: {answer.get('detail')}")

    await asyncio.gather(*(one(b) for b in bettors))
    wall = time.perf_counter() - cpu[2]
    busy = {"server_cpu": (_cpu(args.server_pid) - cpu[0]) / wall,
            "load_generator_cpu": (time.process_time() - cpu[1]) / wall,
            "postgres_cpu": (_named_cpu("postgres") - cpu[3]) / wall}  # PostgreSQL's backends (none on SQLite)
    # the settlement pushes: every confirmed bettor's, then the moments of the last card and the result
    waiting = [b for b in bettors if b.round == number]
    deadline = time.time() + 60
    while any(b.settled_at is None for b in waiting) and time.time() < deadline:
        await asyncio.sleep(0.05)
    last_card, result_at = _moments(args.url, args.table_id, number)
    settled = [b.settled_at for b in waiting if b.settled_at is not None]
    last_push = max(settled) if settled else float("nan")
    pushed = [size for at, size in bettors[0].pushes if closes - seconds <= at <= closes]  # each went to every socket
    return {"round": number, **counts, **busy, "settled_pushed": len(settled), "slices": _slices(timed, seconds),
            "state_pushes": len(pushed), "state_push_bytes": statistics.median(pushed) if pushed else 0,
            "p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
            "p99_ms": statistics.quantiles(latencies, n=100)[98] * 1000 if len(latencies) >= 100 else float("nan"),
            "last_card_to_last_settlement_s": last_push - last_card,
            "result_to_last_settlement_s": last_push - result_at}


def _slices(timed: list[tuple[float, float]], seconds: float, width: float = 0.25) -> list[dict[str, float]]:
    """The confirmations by when they were sent, in slices of ``width`` seconds of the burst: how many, and
    their median and slowest (ms). Where the p99 comes from: a stall shows as a slice or two of slow ones."""
    slices = []
    for k in range(math.ceil(seconds / width)):
        took = sorted(t for at, t in timed if k * width <= at < (k + 1) * width)
        if took:
            slices.append({"from_s": round(k * width, 3), "bets": len(took), "p50_ms": statistics.median(took) * 1000,
                           "max_ms": took[-1] * 1000})
    return slices


#: A burst's counts, summed over the bursts of a run (its other figures are their medians).
_COUNTS = ("sent", "confirmed", "late", "refused_before_close", "sent_after_close", "settled_pushed", "state_pushes")


def typical(bursts: list[dict[str, Any]]) -> dict[str, Any]:
    """The bursts of a run as one: counts summed, every other figure the median of the bursts' (so one burst's
    pause does not make the run's p99), the slices those of the burst with the median p99."""
    if len(bursts) == 1:
        return bursts[0]
    middle = sorted(bursts, key=lambda b: b["p99_ms"])[(len(bursts) - 1) // 2]
    summary: dict[str, Any] = {"rounds": [b["round"] for b in bursts], "slices": middle["slices"]}
    for key, value in bursts[0].items():
        if key in _COUNTS:
            summary[key] = sum(b[key] for b in bursts)
        elif isinstance(value, int | float) and key != "round":
            summary[key] = statistics.median(b[key] for b in bursts)
    return summary


async def saturate(bettors: list[Bettor], seconds: float, args: argparse.Namespace) -> dict[str, Any]:
    number, closes = await _next_window(bettors[0], seconds + 1.0)
    start = closes - seconds - 0.5
    await asyncio.sleep(max(0.0, start - time.time()))
    until = start + seconds
    usage = _usage(args)
    latencies: list[float] = []
    confirmed = 0

    async def one(bettor: Bettor) -> None:
        nonlocal confirmed
        n = 0
        while time.time() < until:
            n += 1
            answer, took = await bettor.bet(number, {("banker", "player")[n % 2]: 100},
                                            f"sat-{number}-{bettor.index:06d}-{n:04d}")
            if answer["type"] != "ok":
                if "closed" not in answer.get("detail", ""):
                    print("saturated phase refused:", answer.get("detail"))
                break
            if time.time() <= until:
                confirmed += 1
                latencies.append(took)

    await asyncio.gather(*(one(b) for b in bettors))
    return {"round": number, "confirmations_per_s": confirmed / seconds, **_shares(usage, args),
            "p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
            "p99_ms": statistics.quantiles(latencies, n=100)[98] * 1000 if len(latencies) >= 100 else float("nan")}


async def drive(base: str, table_id: int, tokens: list[str], args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    bettors = await _open(base, table_id, tokens)
    print(f"{len(bettors)} sockets open in {time.perf_counter() - started:.1f} s")
    # This one process stands for 2,000 clients: its own collector pausing for the sockets' objects (0.1-0.3 s
    # a full collection) would count as the server's latency.  They live to the end: no collection needed.
    gc.collect()
    gc.freeze()
    readers = [asyncio.create_task(b.read()) for b in bettors]
    try:
        bursts = []
        for k in range(args.bursts):  # one round each, the next window after the last one's settlement
            bursts.append(await burst(bettors, args.burst, random.Random(2026 + k), args))
            last = bursts[-1]
            print(f"burst {k + 1} (round {last['round']}): p50 {last['p50_ms']:.0f} ms, p99 {last['p99_ms']:.0f} ms, "
                  f"the server {last['server_cpu']:.0%} of a core, PostgreSQL {last['postgres_cpu']:.0%}", flush=True)
        results: dict[str, Any] = {"burst": typical(bursts), "bursts": bursts}
        if args.saturate_seconds > 0:
            results["saturated"] = await saturate(bettors, args.saturate_seconds, args)
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*(b.socket.close() for b in bettors), return_exceptions=True)
    return results


def _trouble(line: str) -> bool:
    """Whether a line of the server's log is a problem: a warning or an error (its access log and start-up notes,
    at level info, are not), or a line that is not a JSON record (the head of a traceback)."""
    if not line or line.startswith(" ") or "Traceback" in line:
        return False
    try:
        record = json.loads(line)
    except ValueError:
        return True
    return not isinstance(record, dict) or record.get("level") not in ("debug", "info")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bettors", type=int, default=2000)
    parser.add_argument("--window", type=float, default=10.0, help="the betting window (seconds)")
    parser.add_argument("--burst", type=float, default=3.0, help="the bets arrive in the window's last seconds")
    parser.add_argument("--bursts", type=int, default=1, help="bursts measured, one round each: the figures "
                                                                "are their medians (the counts their sums)")
    parser.add_argument("--saturate-seconds", type=float, default=5.0, help="0: no saturated phase")
    parser.add_argument("--database", help="SQLAlchemy URL of an empty database (default: SQLite in a temporary "
                                           "directory)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL only above 1)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--pin-postgres", action=argparse.BooleanOptionalAction, default=True,
                        help="pin a PostgreSQL on this machine to the load generator's core (default: yes)")
    parser.add_argument("--profile", type=Path, help="record the server with py-spy (an SVG flame graph, or "
                                                     "--profile-format) from the burst's first bet to the close; "
                                                     "only the thread holding the GIL (--gil): where the CPU goes")
    parser.add_argument("--server-log", type=Path, help="the server's own log (warnings and errors) to this file "
                                                        "(default: in the temporary data directory)")
    parser.add_argument("--profile-format", default="flamegraph", help="py-spy's: flamegraph, speedscope, raw")
    parser.add_argument("--profile-rate", type=int, default=100, help="py-spy's samples a second")
    args = parser.parse_args()
    seed_key = secrets.token_bytes(32)  # this run's seed key: a new shoe's seed is stored sealed
    seed_keys.use(seed_key)
    os.environ["BACCARAT_SEED_KEY"] = base64.b64encode(seed_key).decode()  # and the server's
    args.postgres_pinned = None
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-burst-"))
    url = args.database or sqlite_url(data_dir)
    started = time.perf_counter()
    table_id, tokens = prepare(url, args.bettors, args.window)
    print(f"prepared one table and {len(tokens)} bettors in {time.perf_counter() - started:.1f} s")
    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    command = [exe, "serve", "--port", "0", "--data-dir", str(data_dir), "--database", url,
               "--workers", str(args.workers)]
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= 2 and shutil.which("taskset"):
        command = ["taskset", "-c", str(cores[0]), *command]
        os.sched_setaffinity(0, {cores[1]})
        if url.startswith("postgresql") and args.pin_postgres:
            args.postgres_pinned = pin_postgres(url, {cores[1]})
            print(args.postgres_pinned)
    args.server_log = args.server_log or data_dir / "server.log"
    log = open(args.server_log, "w")  # noqa: SIM115 - open while it runs
    # Every bettor connects from this one address: lift the per-address connection cap (a guard for a
    # server exposed without a proxy) above the load, as a deployment behind a trusted proxy would have.
    env = {**os.environ, "BACCARAT_CONNECTIONS_PER_ADDRESS": str(2 * args.bettors + 64)}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    database = url.split("://")[0].split("+")[0]
    try:
        assert server.stdout is not None
        match = re.search(r"ready at http://([0-9.:]+)", server.stdout.readline())
        assert match, "the server did not start"
        args.server_pid, args.url, args.table_id = server.pid, url, table_id
        results = asyncio.run(drive(f"ws://{match.group(1)}", table_id, tokens, args))
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        if args.postgres_pinned:  # given back all the cores: a later run with --no-pin-postgres is not pinned
            pin_postgres(url, set(cores))
    troubles = [line for line in args.server_log.read_text().splitlines() if _trouble(line)]
    if troubles:  # e.g. "bulk bets failed": the figures below are not the bulk path's
        print(f"the server logged {len(troubles)} problems ({args.server_log}); the first: {troubles[0]}")
    shown = results["burst"]
    several = f" (the median of {args.bursts} bursts)" if args.bursts > 1 else ""
    print(f"{database}, {args.workers} process(es), {args.bettors} bettors{several}, bets in the last "
          f"{args.burst:g} s of a {args.window:g} s window: {shown['confirmed']} confirmed, {shown['late']} refused "
          f"as late, "
          f"{shown['refused_before_close']} sent before the close and refused; send to confirmation p50 "
          f"{shown['p50_ms']:.0f} ms, p99 {shown['p99_ms']:.0f} ms; last settlement push "
          f"{shown['last_card_to_last_settlement_s']:.2f} s after the last card "
          f"({shown['result_to_last_settlement_s']:.2f} s after the result's moment), "
          f"{shown['settled_pushed']} of {shown['confirmed']} pushed; during the bets the server used "
          f"{shown['server_cpu']:.0%} of a core, this load generator {shown['load_generator_cpu']:.0%}, PostgreSQL "
          f"{shown['postgres_cpu']:.0%}; "
          f"{shown['state_pushes']} state pushes to every socket during the bets, "
          f"{shown['state_push_bytes']:.0f} bytes each")
    slow = sorted(shown["slices"], key=lambda s: -s["max_ms"])[:3]
    print("slowest slices of the burst (sent at, bets, p50 / slowest): " + "; ".join(
        f"{s['from_s']:.2f} s, {s['bets']}, {s['p50_ms']:.0f} / {s['max_ms']:.0f} ms" for s in slow))
    if "saturated" in results:
        sat = results["saturated"]
        print(f"saturated: {sat['confirmations_per_s']:.0f} confirmations/s (p50 {sat['p50_ms']:.0f} ms, "
              f"p99 {sat['p99_ms']:.0f} ms); cores used: the server {sat['server_cores']:.2f}, PostgreSQL "
              f"{sat['postgres_cores']:.2f}, this load generator {sat['load_generator_cores']:.2f}, the whole machine "
              f"{sat['machine_cores_busy']:.2f} of {sat['machine_cores']:.2f}")
    met = (shown["refused_before_close"] == 0 and shown["p99_ms"] <= 250 and shown["settled_pushed"] ==
           shown["confirmed"] and shown["last_card_to_last_settlement_s"] <= 1.0)
    print(f"goal (every bet sent before the close confirmed, p99 <= 250 ms, all settled and pushed within 1 s of "
          f"the last card): {'met' if met else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps({"database": database, "postgres_pinned": args.postgres_pinned,
                                         "workers": args.workers, "bettors": args.bettors, "window": args.window,
                                         "burst": args.burst, **results, "goal_met": met},
                                        indent=2) + "\n")


if __name__ == "__main__":
    main()
