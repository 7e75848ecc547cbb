"""The page's Verify reads a rules file's facts and pays itself (the ES module static/fair.js, imported by Node where
it is installed): every fact of the hands and the cards is the verifier's on real coups, and pays are read as the
verifier reads them ("N for 1" included)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat.core.cards import standard_deck
from baccarat.core.coup import deal_coup
from baccarat.server import catalogue_js
from baccarat.verify import definitions

FAIR = Path(catalogue_js.__file__).parent / "static" / "fair.js"

_HARNESS = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [file, hands, pays] = JSON.parse(readFileSync(0, "utf8"));
const Fair = await import(pathToFileURL(file).href);
const facts = hands.map((h) => Fair.facts({ hands: h }));
process.stdout.write(JSON.stringify({ facts, odds: pays.map((p) => Fair.odds(p)) }));
"""


def _run(hands: list[dict[str, list[str]]], pays: list[str]) -> dict[str, list]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed: the page's scripts are not run here (the browser tests run them)")
    done = subprocess.run([node, "--input-type=module", "-e", _HARNESS], input=json.dumps([str(FAIR), hands, pays]),
                          capture_output=True, text=True, check=True, env={"PATH": ""})
    result: dict[str, list] = json.loads(done.stdout)
    return result


def test_every_fact_on_real_coups_is_the_verifier_s():
    rng = random.Random(5)
    shoe = list(standard_deck()) * 2
    hands = []
    for _ in range(400):
        coup = deal_coup(iter(rng.sample(shoe, 6)).__next__)
        hands.append({"player": [str(c) for c in coup.player_cards], "banker": [str(c) for c in coup.banker_cards]})
    page = _run(hands, [])["facts"]
    for theirs, found in zip(page, hands, strict=True):
        assert theirs == definitions.facts(found), found


@pytest.mark.parametrize(("pays", "net"), [("11", "11"), ("19/20", "19/20"), ("push", "0"), ("lose", "-1"),
                                            ("9 for 1", "8"), ("3/2 for 1", "1/2")])
def test_pays_are_read_as_the_verifier_reads_them(pays: str, net: str):
    num, den = _run([], [pays])["odds"][0]
    assert Fraction(num, den) == Fraction(net) == definitions._pays(pays, "test")


_STRIKES = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [file, key, positions, feature] = JSON.parse(readFileSync(0, "utf8"));
const Fair = await import(pathToFileURL(file).href);
const bytes = Uint8Array.from(Buffer.from(key, "hex"));
const out = [];
for (const p of positions) out.push(await Fair.strikeOf(bytes, p, feature));
process.stdout.write(JSON.stringify(out));
"""


def test_the_page_draws_each_coup_s_struck_cards_as_the_house_does():
    """Step 9 in the page's own code (Web Crypto): the same struck cards and multipliers as the house draws."""
    from baccarat.core.strikes import Multipliers, draw, strike_json

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed: the page's scripts are not run here (the browser tests run them)")
    key = bytes(range(32))
    feature = Multipliers(("player",), ((1, 2), (3, 1), (5, 2)), ((2, 4), (8, 1), (3, 2)), cap=64)
    positions = [4, 11, 300, 65535]
    given = {"struck": [list(r) for r in feature.counts], "values": [list(r) for r in feature.values], "cap": 64}
    done = subprocess.run([node, "--input-type=module", "-e", _STRIKES],
                          input=json.dumps([str(FAIR), key.hex(), positions, given]), capture_output=True, text=True,
                          check=True, env={"PATH": ""})
    assert json.loads(done.stdout) == [strike_json(draw(key, p, feature)) for p in positions]
