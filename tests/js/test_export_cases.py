"""The page's export check is tested on exports the server's own code signed (``tests/js/fair_export.test.js`` reads
``tests/js/cases/export.json``): the file must be what that code gives now."""

from __future__ import annotations

import json

from . import export_cases


def test_the_page_s_export_cases_are_what_the_server_signs_now() -> None:
    assert export_cases.main(["--check"]) == 0, f"run {export_cases.COMMAND}"
    written = json.loads(export_cases.PATH.read_text(encoding="utf-8"))
    assert {c["code"] for c in written["cases"]} == {"fair.export_signed", "fair.export_edited",
                                                     "fair.export_unsigned", "fair.export_other_key"}
