"""The page's stake rule is tested on cases the server's rule answered (``tests/js/betting.test.js`` reads
``tests/js/cases/stakes.json``): the file must be what the server's rule answers now."""

from __future__ import annotations

import json

from . import stake_cases


def test_the_page_s_stake_cases_are_what_the_server_s_rule_answers_now() -> None:
    assert stake_cases.main(["--check"]) == 0, f"run {stake_cases.COMMAND}"
    written = json.loads(stake_cases.PATH.read_text(encoding="utf-8"))
    assert len(written["cases"]) >= 1000 and set(written["games"]) == {"mini", "ez", "lucky-draw", "lightning"}
