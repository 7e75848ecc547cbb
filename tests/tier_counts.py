"""A pytest plugin that writes how many tests each tier has, as JSON, to the file named by
``BACCARAT_TIER_COUNTS`` (``python -m pytest --collect-only -q -p tests.tier_counts``): the counts that
``docs/development.md`` quotes are checked against it (``tests/test_development_doc.py``)."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

TIERS = ("unit", "component", "system", "browser")


@pytest.hookimpl(trylast=True)  # after tests/conftest.py has marked each test's tier
def pytest_collection_finish(session: pytest.Session) -> None:
    target = os.environ.get("BACCARAT_TIER_COUNTS")
    if not target:
        return
    counts = Counter(next((tier for tier in TIERS if item.get_closest_marker(tier)), "none") for item in session.items)
    Path(target).write_text(json.dumps({tier: counts[tier] for tier in (*TIERS, "none")}))
