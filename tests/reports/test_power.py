"""The power table (power.json) is the table of the battery and defects as they are, and every defect in it is
caught at the default size."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat.reports import power
from baccarat.reports.battery import ALPHA, SUB_SAMPLE_FLOOR
from baccarat.reports.certify import DEFAULT_SHOES, STREAM_FAMILY, certify
from baccarat.reports.defects import DEFECTS, defect


def test_the_table_is_of_this_battery_and_these_defects() -> None:
    table = power.load()
    codes = [t.code for t in certify(SUB_SAMPLE_FLOOR, seed=1, workers=1).tests]
    assert table["tests"] == codes and table["family"] == len(codes) + STREAM_FAMILY
    assert [d["code"] for d in table["defects"]] == [d.code for d in DEFECTS]
    assert table["default_shoes"] == DEFAULT_SHOES and table["sizes"][-1] == DEFAULT_SHOES
    for row in table["defects"]:
        assert row["caught_from"] is not None and row["runs"][-1]["caught"], row["code"]
        assert power.caught_from([power.Caught(r["shoes"], r["caught"], (), 0.0) for r in row["runs"]]) \
            == row["caught_from"]


def test_caught_from_is_the_size_from_which_every_larger_one_caught_it() -> None:
    def runs(*caught: bool) -> list[power.Caught]:
        return [power.Caught(n, c, (), 0.0) for n, c in zip((1, 2, 3), caught, strict=True)]

    assert power.caught_from(runs(False, True, True)) == 2
    assert power.caught_from(runs(True, False, True)) == 3
    assert power.caught_from(runs(True, True, False)) is None


@pytest.mark.slow
@pytest.mark.parametrize("code", [d.code for d in DEFECTS])
def test_every_defect_is_caught_at_the_default_size(code: str) -> None:
    """The claim of the power table's last column, run again (the defects are seeded as the table was)."""
    result = certify(DEFAULT_SHOES, shuffler=defect(code).make(power.load()["seed"]), workers=1)
    assert not result.passed
    expected = next(d for d in power.load()["defects"] if d["code"] == code)["runs"][-1]["tests"]
    assert [t.code for t in sorted(result.tests, key=lambda t: t.adjusted_p) if t.adjusted_p <= ALPHA] == expected


def test_the_docs_quote_the_battery_as_it_is() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "certification.md").read_text(encoding="utf-8")
    readme = (root / "README.md").read_text(encoding="utf-8")
    table = power.load()
    shoe_tests = len(table["tests"])
    words = {12: "twelve"}
    assert f"the {shoe_tests} shoe tests and the stream's {STREAM_FAMILY}" in page
    assert f"family of {table['family']})" in page and f"over {table['family']} tests" in \
        (root / "docs" / "requirements.md").read_text(encoding="utf-8")
    assert f"holds {words[len(DEFECTS)]} defective shuffles" in page and f"battery of {shoe_tests} tests" in readme
    assert f"`--shoes N` | {DEFAULT_SHOES:,}" in page
    for code in table["tests"]:
        assert f"| `{code}` |" in page, code
