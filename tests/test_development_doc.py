"""``docs/development.md`` quotes each tier's number of tests: they are the suite's own, counted by collecting
it (so a test added, moved or re-marked shows up here until the page says so), and no test is outside a tier."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .tier_counts import TIERS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "development.md"
#: a row of the page's table of tiers: | `unit` | what | 850 | budget | measured |
ROW = re.compile(r"^\| `(\w+)` \| [^|]+ \| ([\d,]+) \|", re.MULTILINE)


def quoted() -> dict[str, int]:
    """The tests each tier has, as the page says."""
    table = PAGE.read_text().split("<!-- tiers:", 1)[1].split("<!-- /tiers -->", 1)[0]
    return {tier: int(count.replace(",", "")) for tier, count in ROW.findall(table)}


def test_the_page_quotes_every_tier() -> None:
    assert list(quoted()) == list(TIERS)


@pytest.mark.slow  # a whole collection in a process of its own
def test_the_tier_counts_on_the_page_are_the_suite_s(tmp_path: Path) -> None:
    counts = tmp_path / "counts.json"
    env = dict(os.environ, BACCARAT_TIER_COUNTS=str(counts), BACCARAT_NO_PROVISION="1")
    env.pop("BACCARAT_FAST_TEST_SECONDS", None)  # collecting only: no warm-up for a budget
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "tests.tier_counts",
                           "-p", "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = json.loads(counts.read_text())
    assert collected.pop("none") == 0  # every test is in a tier
    assert quoted() == collected, "update the table of tiers in docs/development.md"
