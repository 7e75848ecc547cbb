"""The exports the page's signature check is tested on (``tests/js/fair_export.test.js``), signed by the server's own
code (:mod:`baccarat.server.house.export_signature`) with a fixed test key.

Each case is an export's text as a player holds it (as the server sends it, pretty-printed by a viewer, edited,
unsigned, signed by another key), the canonical text the signature covers, and what the check must say::

    python tests/js/export_cases.py           # write tests/js/cases/export.json again
    python tests/js/export_cases.py --check   # exit 1 when the file is not what the server's signing gives now
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from baccarat.server.house.export_signature import LABEL, house_key, message, signature

PATH = Path(__file__).parent / "cases" / "export.json"
COMMAND = "python tests/js/export_cases.py"
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))

#: An export with what JSON can hold: nested members out of order, floats written as Python writes them, a large
#: integer, escapes, Chinese, an empty object and list, booleans and null.
EXPORT: dict[str, Any] = {
    "format": "baccarat history export/1", "account": "陈 \"Ann\" \\ tab\there", "balance": 12_345_678_901_234,
    "rounds": [{"round": 7, "odds": 1.0, "share": 0.5, "tiny": 1e-05, "big": 1.5e300,
                "bets": {"tie": 100, "banker": -5}, "cards": ["Kh", "9d"], "void": False, "seat": None,
                "note": "line\nbreak \u2028 é"}],
    "movements": [], "shoes": [{}], "in_play": [True],
}


def _case(name: str, text: str, expected: str) -> dict[str, str]:
    body = json.loads(text)
    return {"name": name, "text": text, "canonical": message(body).decode()[len(LABEL) + 1:], "code": expected}


def cases() -> dict[str, Any]:
    """Every case, with the key they are checked against."""
    signed = {**EXPORT, "signature": signature(EXPORT, KEY)}
    sent = json.dumps(signed, ensure_ascii=False, separators=(",", ":"))
    edited = sent.replace('"balance":12345678901234', '"balance":12345678901235')
    assert edited != sent
    return {
        "generated_by": COMMAND,
        "key": dict(house_key(KEY.public_key())),
        "cases": [
            _case("as sent", sent, "fair.export_signed"),
            _case("pretty-printed", json.dumps(signed, ensure_ascii=True, indent=2), "fair.export_signed"),
            _case("members reordered", json.dumps(dict(reversed(list(signed.items()))), ensure_ascii=False),
                  "fair.export_signed"),
            _case("a figure edited", edited, "fair.export_edited"),
            _case("a float written otherwise", sent.replace('"odds":1.0', '"odds":1'), "fair.export_edited"),
            _case("unsigned", json.dumps(EXPORT, ensure_ascii=False), "fair.export_unsigned"),
            _case("another key", json.dumps({**EXPORT, "signature": signature(EXPORT, OTHER)}),
                  "fair.export_other_key"),
        ],
    }


def main(argv: list[str]) -> int:
    """Write the file, or with ``--check`` say whether it is current; the exit status."""
    wanted = json.dumps(cases(), ensure_ascii=False, indent=1) + "\n"
    if argv == ["--check"]:
        current = PATH.read_text(encoding="utf-8") if PATH.exists() else ""
        return 0 if current == wanted else 1
    PATH.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
