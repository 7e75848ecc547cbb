"""The table page's own cost in the browser: Chromium's CPU while players sit at a table and rounds go by.

A ``baccarat serve`` on a fresh SQLite database; ``--pages`` players (3) register, sit at table 1 (mini) in
headless Chromium (Debian's ``chromium``, through Playwright), and the CPU time of every Chromium process is
read from ``/proc`` over ``--seconds`` (20) of betting windows, deals and results.  Reported: Chromium's CPU
seconds in all, per page per second (a page that repaints without end costs a seventh of a core), repeated
``--runs`` times (3) with the median.  Every browser test and every player's phone pays this.  Also: what one
new page costs Chromium (a fresh context, a page, ``/health`` loaded), the median of ten, which every browser
test pays for each player it opens; ``--chromium chromium-headless-shell`` measures the build the tests drive.

    python benchmarks/page_cpu.py [--pages 3] [--seconds 20] [--runs 3] [--chromium chromium] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' page helpers (register, sit)


def chromium_cpu() -> float:
    """CPU seconds (user and system) of every Chromium process now running."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if b"chromium" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:  # gone meanwhile
            continue
    return total


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def measure(pages: int, seconds: float, executable: str) -> tuple[float, float]:
    """Chromium's CPU seconds over ``seconds`` with ``pages`` players seated at table 1, and the median CPU
    seconds of a new page (ten fresh contexts, each loading ``/health``)."""
    from playwright.sync_api import sync_playwright
    from tests.browser_kit import register, sit

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "baccarat.cli.app", "serve", "--port", str(port),
                               "--data-dir", tempfile.mkdtemp(prefix="page-cpu-")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "BACCARAT_PASSWORD_COST": "4"})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
            opened = []
            for n in range(pages):
                page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                register(page, f"cpu{n}_{port}")
                sit(page, 1)
                opened.append(page)
            opened[0].wait_for_timeout(3000)  # the pages settle
            start = chromium_cpu()
            opened[0].wait_for_timeout(seconds * 1000)
            used = chromium_cpu() - start
            costs = []
            for _ in range(10):
                before = chromium_cpu()
                context = browser.new_context()
                context.new_page().goto(f"http://127.0.0.1:{port}/health")
                opened[0].wait_for_timeout(300)  # what the new renderer does once the page is loaded
                costs.append(chromium_cpu() - before)
                context.close()
            browser.close()
        return used, statistics.median(costs)
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chromium", default="chromium", help="the Chromium to run (a name on the PATH or a path)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    executable = shutil.which(args.chromium)
    if executable is None:
        sys.exit(f"page_cpu: no {args.chromium} on the PATH (apt-get install chromium chromium-headless-shell)")
    measured = [measure(args.pages, args.seconds, executable) for _ in range(args.runs)]
    runs = [used for used, _ in measured]
    median = statistics.median(runs)
    per_page = median / args.pages / args.seconds
    new_page = statistics.median(cost for _, cost in measured)
    print(f"{args.chromium}: CPU over {args.seconds:.0f} s with {args.pages} pages seated: "
          f"{', '.join(f'{r:.1f}' for r in runs)} s (median {median:.1f} s), {per_page:.1%} of a core a page; "
          f"a new page {new_page:.2f} s")
    if args.json:
        args.json.write_text(json.dumps({"chromium": args.chromium, "pages": args.pages, "seconds": args.seconds,
                                         "runs": runs, "median": median, "core_per_page": per_page,
                                         "new_page": new_page}, indent=2))


if __name__ == "__main__":
    main()
