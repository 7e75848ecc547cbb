"""Algorithm 3: the Merkle tree over the shuffled shoe, so that every round is proven the moment it
ends.  The worked example of docs/fairness.md recomputed by hand (hashlib and hmac only); the
house's tree (``baccarat.core.fair``) against the RFC 6962 definition and against the verifier's
own computation (``baccarat.verify.merkle``); and ``baccarat verify`` on shoes still in play (no
seed yet), each kind of tampering named at once with exit 3."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat import verify as verifier
from baccarat.cli.app import main
from baccarat.core.fair import (
    ALGORITHM,
    ShoeTree,
    check_proof,
    fair_cards,
    leaf_hash,
    merkle_path,
    merkle_root,
    salt,
    shoe_key,
)
from baccarat.verify import merkle as vmerkle
from tests.core.test_fair_shoes import TAMPERING, _transcript

# --- the worked example, by hand -------------------------------------------------------------

SEED = bytes(range(32))
#: Pinned in docs/fairness.md ("Algorithm 3: the Merkle tree, by hand").
SALT_0 = "bab77c04a925d56bedc18c3d8bf5bcc8ea8c497e508709ef89077775e498a202"
LEAF_0 = "93e2a4d3d0140fa8dd84a73f79d6d83e5e018bf555de61b9651fd44aa0aa3a8b"
LEAF_1 = "61939011293505b75f22cbd8e97a68fed3bd7aeb5018cd0c99695a70fe3fe91e"
NODE_01 = "be85575f12cdbbd543a9e15f63bfea22b9227a7cf82382a50510b5f88ff2d1c2"
ROOT = "92ee186a33cbf4c1edb9c8c344ffb421fcf0949945ad17aa1dcc6473f084cb3c"


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _rfc6962(leaves: list[bytes]) -> bytes:
    """RFC 6962, 2.1, as written: MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return _sha(b"\x01" + _rfc6962(leaves[:k]) + _rfc6962(leaves[k:]))


def test_the_worked_example_recomputed_by_hand():
    cards = [str(c) for c in fair_cards(shoe_key(ALGORITHM, SEED, ["ben.lucky", "ann-2026"]), 1)]
    assert cards[:4] == ["3h", "8s", "Jd", "8d"]  # the example of algorithm 2: the same shuffle
    salts = [hmac.new(SEED, b"salt" + i.to_bytes(2, "big"), hashlib.sha256).digest() for i in range(52)]
    leaves = [_sha(b"\x00" + i.to_bytes(2, "big") + card.encode("ascii") + s)
              for i, (card, s) in enumerate(zip(cards, salts, strict=True))]
    assert salts[0].hex() == SALT_0 and leaves[0].hex() == LEAF_0 and leaves[1].hex() == LEAF_1
    assert _sha(b"\x01" + leaves[0] + leaves[1]).hex() == NODE_01
    assert _rfc6962(leaves).hex() == ROOT
    tree = ShoeTree(SEED, fair_cards(shoe_key(ALGORITHM, SEED, ["ann-2026", "ben.lucky"]), 1))
    assert tree.root == ROOT == vmerkle.shoe_root(SEED, cards)
    proof = tree.proof(0)
    assert proof["salt"] == SALT_0 and proof["path"][0] == LEAF_1 and len(proof["path"]) == 6
    # climbing by hand: position 0 is a left child all the way up (32 leaves left, 20 right at the top)
    node = leaves[0]
    for sibling in proof["path"]:
        node = _sha(b"\x01" + node + bytes.fromhex(sibling))
    assert node.hex() == ROOT
    assert proof["path"][-1] == _rfc6962(leaves[32:]).hex()


# --- the house's tree ------------------------------------------------------------------------

@pytest.mark.parametrize("size", [*range(1, 20), 31, 32, 33, 52, 63, 64, 65, 104, 416])
def test_root_and_every_path_follow_rfc_6962(size):
    leaves = [_sha(i.to_bytes(2, "big")) for i in range(size)]
    root = merkle_root(leaves)
    assert root == _rfc6962(leaves) == vmerkle.tree_root(leaves)
    for i in range(size):
        path = merkle_path(leaves, i)
        assert len(path) == (size - 1).bit_length() or len(path) < (size - 1).bit_length()
        assert vmerkle._climb(leaves[i], i, size, list(path)) == root


def test_a_proof_proves_one_card_at_one_position_and_nothing_else():
    cards = fair_cards(shoe_key(ALGORITHM, SEED, ["a"]), 2)
    tree = ShoeTree(SEED, cards)
    for position in range(104):
        proof = tree.proof(position)
        card = str(cards[position])
        assert proof["salt"] == salt(SEED, position).hex()
        assert check_proof(tree.root, size=104, position=position, card=card, salt=proof["salt"], path=proof["path"])
        other = "Ac" if card != "Ac" else "Kd"
        assert not check_proof(tree.root, size=104, position=position, card=other, salt=proof["salt"],
                               path=proof["path"])
        assert not check_proof(tree.root, size=104, position=(position + 1) % 104, card=card, salt=proof["salt"],
                               path=proof["path"])
        assert not check_proof(tree.root, size=104, position=position, card=card, salt=salt(SEED, 999).hex(),
                               path=proof["path"])
        assert not check_proof(tree.root, size=104, position=position, card=card, salt=proof["salt"],
                               path=proof["path"][:-1])
        assert not check_proof(tree.root, size=104, position=position, card=card, salt="zz", path=proof["path"])
    # the last card lies alone on the tree's right edge: its path is shorter, and fits no other size
    last = tree.proof(103)
    assert not check_proof(tree.root, size=105, position=103, card=str(cards[103]), salt=last["salt"],
                           path=last["path"])
    assert leaf_hash(0, "Ac", bytes(32)) != leaf_hash(0, "Ad", bytes(32))


def test_a_salt_reveals_nothing_without_the_seed():
    """The salt is an HMAC under the secret seed: different for every position and every seed."""
    salts = {salt(SEED, i) for i in range(416)} | {salt(bytes(32), i) for i in range(416)}
    assert len(salts) == 832


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32),
       seeds=st.lists(st.text(alphabet="abcxyz-09", min_size=1, max_size=8), max_size=3),
       decks=st.integers(1, 8), data=st.data())
def test_the_verifier_computes_the_same_tree_on_its_own(seed, seeds, decks, data):
    cards = fair_cards(shoe_key(ALGORITHM, seed, seeds), decks)
    tree = ShoeTree(seed, cards)
    order = verifier.shoe_order(verifier.stream_key(verifier.ALGORITHM, seed, seeds), decks)
    assert vmerkle.shoe_root(seed, order) == tree.root
    for position in data.draw(st.lists(st.integers(0, 52 * decks - 1), min_size=1, max_size=5)):
        proof = tree.proof(position)
        assert proof["salt"] == vmerkle.salt_of(seed, position).hex()
        assert vmerkle.proves(tree.root, 52 * decks, position, order[position], proof)
        assert not vmerkle.proves(tree.root, 52 * decks, position, order[position - 1], proof) or (
            order[position - 1] == order[position])


# --- shoes in play: every round proven at once -----------------------------------------------


def _in_play(doc: dict[str, Any]) -> dict[str, Any]:
    """The transcript as it stands before the seeds are revealed: no seed, no end yet."""
    for record in doc["shoes"]:
        del record["server_seed"]
        record.pop("ended", None)
    return doc


def _verify(doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    code = main(["verify", str(path)])
    return code, capsys.readouterr().out


def test_a_shoe_in_play_is_proven_at_once(tmp_path, capsys):
    doc = _in_play(_transcript("ez", ["banker=10 dragon_7=1 player=5"] * 20))
    code, out = _verify(doc, tmp_path, capsys)
    assert code == 0, out
    assert "shoe 1: in play; 8 rounds, 38 cards proven now" in out and "proven now against its Merkle root" in out
    assert "20 of your rounds dealt again from their shoes (20 of them proven now" in out
    assert "MISMATCH" not in out


def _round(doc: dict[str, Any], n: int) -> dict[str, Any]:
    entry: dict[str, Any] = doc["shoes"][0]["rounds"][n]
    return entry


def _swap(doc: dict[str, Any]) -> None:
    """Two cards of round 2 swapped with their proofs: each proof holds, the positions do not."""
    entry = _round(doc, 1)
    for key in ("cards", "proof"):
        entry[key][0], entry[key][1] = entry[key][1], entry[key][0]
    doc["rounds"][1]["deal_order"] = list(entry["cards"])


def _skip(doc: dict[str, Any]) -> None:
    """Round 2 dealt one card further on: the card there, with its own (valid) proof."""
    shoe = _transcript("ez", ["banker=10 dragon_7=1 player=5"] * 20)  # (the same seeds: the same shoe)
    first = shoe["shoes"][0]["rounds"][1]
    nxt = shoe["shoes"][0]["rounds"][2]
    cards = [*first["cards"][1:], nxt["cards"][0]]
    proofs = [*first["proof"][1:], nxt["proof"][0]]
    _round(doc, 1)["cards"], _round(doc, 1)["proof"] = cards, proofs


def _reuse(doc: dict[str, Any]) -> None:
    """Round 2's first card is round 1's first card again, with its valid proof."""
    _round(doc, 1)["cards"][0] = _round(doc, 0)["cards"][0]
    _round(doc, 1)["proof"][0] = copy.deepcopy(_round(doc, 0)["proof"][0])


def _salt(doc: dict[str, Any]) -> None:
    proof = _round(doc, 1)["proof"][2]
    proof["salt"] = hashlib.sha256(b"guess").hexdigest()


def _path(doc: dict[str, Any]) -> None:
    path = _round(doc, 1)["proof"][2]["path"]
    path[3] = hashlib.sha256(b"forged").hexdigest()


#: Tampering with what the tree proves, and the mismatch each is named by, at once.
PROOF_TAMPERING = {
    "swapped positions": (_swap, "shoe 1, round 2, position of card 1: the record says"),
    "a skipped position": (_skip, "shoe 1, round 2, position of card 1: the record says"),
    "a reused position": (_reuse, "shoe 1, round 2, position of card 1: the record says"),
    "a wrong salt": (_salt, "shoe 1, round 2, card 3: the record says"),
    "a wrong path": (_path, "shoe 1, round 2, card 3: the record says"),
    "a changed root": (lambda doc: doc["shoes"][0].update(merkle_root="ab" * 32),
                       "shoe 1, Merkle root: none of the"),
    "a proof left out": (lambda doc: _round(doc, 1).pop("proof"), "shoe 1, round 2, proofs: the record says nothing"),
    "a burned card's proof": (lambda doc: doc["shoes"][0]["burn_proof"][0].update(position=5),
                              "shoe 1, position of burned card 1: the record says 5"),
}
#: The verifier's names that need the seed itself: checked when the shoe ends, not before.
NEEDS_THE_SEED = {"a client seed added", "the commitment", "the server seed", "the cut card moved down"}


@pytest.mark.parametrize("what", [*PROOF_TAMPERING, *(t for t in TAMPERING if t not in NEEDS_THE_SEED)])
def test_each_kind_of_tampering_in_a_shoe_in_play_is_named_at_once(what, tmp_path, capsys):
    tamper, message = PROOF_TAMPERING.get(what) or TAMPERING[what]
    doc = _in_play(_transcript("ez", ["banker=10 dragon_7=1 player=5"] * 20))
    assert _verify(doc, tmp_path, capsys)[0] == 0
    tamper(doc)
    code, out = _verify(doc, tmp_path, capsys)
    assert code == 3, out
    assert f"MISMATCH {message.replace('the seed gives', 'the proven cards give')}" in out, out


def test_a_changed_card_is_named_by_its_proof(tmp_path, capsys):
    doc = _in_play(_transcript("ez", ["banker=10"] * 6))
    card = _round(doc, 1)["cards"][2]
    changed = "Ah" if card != "Ah" else "Kh"
    _round(doc, 1)["cards"][2] = doc["rounds"][1]["deal_order"][2] = changed
    code, out = _verify(doc, tmp_path, capsys)
    assert code == 3
    assert (f"MISMATCH shoe 1, round 2, card 3: the record says {changed} at position "
            f"{_round(doc, 1)['proof'][2]['position']}, and its proof (salt and path) does not lead to the shoe's "
            "Merkle root") in out


@pytest.mark.parametrize("what", ["a wrong salt", "a changed root", "a card"])
def test_at_the_end_the_seed_proves_the_root_and_the_salts(what, tmp_path, capsys):
    doc = _transcript("ez", ["banker=10 dragon_7=1 player=5"] * 20)
    assert _verify(doc, tmp_path, capsys)[0] == 0
    if what == "a wrong salt":
        _salt(doc)
        message = "shoe 1, round 2, salt of card 3: the record says"
    elif what == "a changed root":
        doc["shoes"][0]["merkle_root"] = "ab" * 32
        message = f"shoe 1, Merkle root: the record says {'ab' * 32}, the revealed seeds' shuffle gives"
    else:
        TAMPERING["a card"][0](doc)
        message = "shoe 1, round 2, card 1: the record says"
    code, out = _verify(doc, tmp_path, capsys)
    assert code == 3 and f"MISMATCH {message}" in out, out
    if what == "a card":  # named once, as not the seed's card, not again for its proof
        assert "does not lead to the shoe's Merkle root" not in out


def test_a_root_that_is_not_the_seeds_shuffle_is_named_at_the_end(tmp_path, capsys):
    """A house that published the root of another order: every proof held during the shoe; the
    revealed seed shows the root was not its shuffle."""
    doc = _transcript("ez", ["banker=10"] * 4)
    record = doc["shoes"][0]
    other = ShoeTree(bytes.fromhex(record["server_seed"]), fair_cards(shoe_key(ALGORITHM, SEED, []), 1))
    record["merkle_root"] = other.root
    code, out = _verify(doc, tmp_path, capsys)
    assert code == 3 and "MISMATCH shoe 1, Merkle root: the record says" in out
