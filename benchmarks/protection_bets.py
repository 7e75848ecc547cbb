"""The cost of player protection on a bet: in-process bets on SQLite by a player with no limits and
by one with loss limits per day, week and month, after a long history outside the windows.

    python benchmarks/protection_bets.py [--history 3000] [--bets 300] [--json FILE]

A bet of a player with limits locks the player's protection row and sums the wallet's play movements
in the windows; the history older than the longest window is never read (``postings(account,
transaction_id)`` after the last movement dated a day before the window), so the cost follows
the play in the window.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def measure(history: int, bets: int) -> dict[str, Any]:
    from baccarat.server.house import accounts, protection, seed_keys
    from baccarat.server.playing import betting, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.storage import clock
    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.migrate import upgrade

    held = clock.ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    clock.use(held)
    seed_keys.use(secrets.token_bytes(32))  # this run's seed key: a new shoe's seed is stored sealed
    url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"
    upgrade(url)
    figures: dict[str, Any] = {"history": history, "bets": bets}
    with connect(url) as sessions:
        def setup(s: Any) -> tuple[int, list[int]]:
            table = tables.create_table(s, "bench", "mini", betting_seconds=600)
            players = [accounts.register(s, name, "correct horse", grant=10**9).id for name in ("free", "kept")]
            for player in players:
                seating.sit(s, table.id, player)
            return table.id, players
        table_id, (free, kept) = transaction(sessions, setup)
        for _ in range(history):  # long ago: outside every window
            transaction(sessions, lambda s: betting.place_bets(s, table_id, kept, {"player": 100}))
        for period in ("day", "week", "month"):
            transaction(sessions, lambda s, p=period: protection.set_limit(s, kept, "loss", p, 10**8))
        held.moment += timedelta(days=40)
        deal_due(sessions, now=held.now())
        held.moment += timedelta(seconds=30)  # past the deal and the results pause: the next round is open
        for name, player in (("no limits", free), ("three loss limits", kept)):
            times = []
            for _ in range(bets):
                start = time.perf_counter()
                transaction(sessions, lambda s, p=player: betting.place_bets(s, table_id, p, {"banker": 100}))
                times.append(time.perf_counter() - start)
            figures[name] = {"median_ms": round(statistics.median(times) * 1000, 2),
                             "p99_ms": round(sorted(times)[int(len(times) * 0.99) - 1] * 1000, 2)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--history", type=int, default=3000, help="bets of the player 40 days before")
    parser.add_argument("--bets", type=int, default=300, help="bets timed per player")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    figures = measure(options.history, options.bets)
    for name in ("no limits", "three loss limits"):
        print(f"{name:>18}: median {figures[name]['median_ms']:.2f} ms, p99 {figures[name]['p99_ms']:.2f} ms per bet "
              f"({options.bets} bets, SQLite, in-process; {options.history} older bets of the limited player)")
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
