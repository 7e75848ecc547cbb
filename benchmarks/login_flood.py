"""Write latency under a login flood: a real ``baccarat serve`` process on SQLite, one client timing
operator wallet credits (a money-moving write transaction, as a bet is) while N threads send logins
with random usernames and wrong passwords.

    python benchmarks/login_flood.py --flood 10 [--seconds 15] [--spread] [--json FILE]

--spread: each flood thread sends from 5 loopback addresses of its own (127.0.T.1-5) in turn, as a
botnet would, so that the per-address limit does not stop the flood and the hash bound is what is measured.
The flood runs in a process of its own; a thread that gets 429 waits 50 ms before its next login.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import re
import secrets
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx


def start(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    code = "import sys; from baccarat.cli.app import main; sys.argv[0] = 'baccarat'; main()"
    server = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0", "--data-dir", str(data_dir)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=os.environ.copy())
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"ready at (http://[0-9.]+:\d+)", line)
    assert match, line
    return server, match.group(1)


def flood_process(base: str, threads: int, spread: bool, seconds: float, results: str, ready: Any) -> None:
    """The flood, in its own process (its threads must not slow the timing client down)."""
    stop = threading.Event()
    armed = threading.Barrier(threads + 1)
    tls = ssl.create_default_context()  # one for all the clients: making one costs milliseconds
    answers: dict[int, int] = {}
    lock = threading.Lock()

    def flood(n: int) -> None:
        # spread: 5 clients per thread, each bound to its own loopback address, used in turn
        count = 5 if spread else 1
        clients = [httpx.Client(base_url=base, timeout=120, verify=tls, transport=httpx.HTTPTransport(
            verify=tls, local_address=f"127.0.{1 + n}.{1 + k}" if spread else "127.0.0.1")) for k in range(count)]
        armed.wait()
        for i in itertools.count():
            if stop.is_set():
                break
            body = {"username": "u" + secrets.token_hex(6), "password": "wrong password"}
            status = clients[i % count].post("/api/sessions", json=body).status_code
            with lock:
                answers[status] = answers.get(status, 0) + 1
            if status == 429:
                time.sleep(0.05)  # a flood of logins, not of bare requests
        for client in clients:
            client.close()

    workers = [threading.Thread(target=flood, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    armed.wait()
    ready.set()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    Path(results).write_text(json.dumps(answers))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--spread", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    from baccarat.server.house import accounts
    from baccarat.server.storage.db import connect, sqlite_url, transaction
    from baccarat.server.storage.migrate import upgrade

    data_dir = Path(tempfile.mkdtemp())
    results = str(data_dir / "answers.json")
    url = sqlite_url(data_dir)
    upgrade(url)
    with connect(url) as sessions:
        transaction(sessions, lambda s: accounts.register(s, "boss", "correct horse", grant=0, role="operator"))
        player = transaction(sessions, lambda s: accounts.register(s, "punter", "correct horse", grant=0).id)
    server, base = start(data_dir)
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            token = client.post("/api/sessions", json={"username": "boss", "password": "correct horse"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            keys = itertools.count()

            def credit() -> float:
                started = time.perf_counter()
                answer = client.post(f"/api/operator/wallets/{player}/credit", json={"amount": 1},
                                     headers={**auth, "Idempotency-Key": f"k-{next(keys):08d}"})
                assert answer.status_code == 200, answer.text
                return time.perf_counter() - started

            quiet = [credit() for _ in range(40)]
            context = multiprocessing.get_context("spawn")
            ready = context.Event()
            flooder = context.Process(target=flood_process, args=(base, options.flood, options.spread,
                                                                   options.seconds + 1.5, results, ready))
            flooder.start()
            assert ready.wait(120)
            time.sleep(1.0)
            loaded: list[float] = []
            until = time.monotonic() + options.seconds
            while time.monotonic() < until:
                loaded.append(credit())
                time.sleep(0.02)
            flooder.join()
            answers = json.loads(Path(results).read_text())

        def figures(values: list[float]) -> dict[str, float]:
            ms = sorted(v * 1000 for v in values)
            return {"n": len(ms), "p50_ms": statistics.median(ms), "p90_ms": ms[int(0.9 * (len(ms) - 1))],
                    "max_ms": ms[-1]}

        def line(f: dict[str, float]) -> str:
            return f"n={f['n']} p50={f['p50_ms']:.0f} ms p90={f['p90_ms']:.0f} ms max={f['max_ms']:.0f} ms"

        report = {"flood": options.flood, "spread": options.spread, "quiet": figures(quiet),
                  "under_flood": figures(loaded), "login_answers": dict(sorted(answers.items()))}
        print(f"flood={options.flood} spread={options.spread}")
        print(f"  quiet:  {line(report['quiet'])}")
        print(f"  flood:  {line(report['under_flood'])}")
        print(f"  login answers during the run: {report['login_answers']}")
        if options.json:
            options.json.write_text(json.dumps(report, indent=2))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
