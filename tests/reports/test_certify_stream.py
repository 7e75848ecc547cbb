"""The server's stream as the certification tests it: the dump is the words the shuffle reads, NIST's and
Dieharder's results enter the verdict, and the report says what software made it."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest

from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError
from baccarat.core.fair import ALGORITHM, HmacStream, fair_cards, shoe_key
from baccarat.reports.battery import ALPHA
from baccarat.reports.certify import certify
from baccarat.reports.dealing import CLIENT_SEEDS, derived_server_seed
from baccarat.reports.nist import NistSummary
from baccarat.reports.provenance import package_hash
from baccarat.reports.stream import shoe_stream, stream_bytes, write_stream
from baccarat.reports.stream_battery import dieharder, nist_finding, parse_dieharder


def _key(seed: int, shoe: int) -> bytes:
    return shoe_key(ALGORITHM, derived_server_seed(seed, shoe), CLIENT_SEEDS)


def test_the_stream_is_every_word_fair_cards_reads() -> None:
    read: list[int] = []

    class Recorded(HmacStream):
        def _word(self) -> int:
            word = super()._word()
            read.append(word)
            return word

    from baccarat.core import fair

    key = _key(5, 1)
    original = fair.HmacStream
    fair.HmacStream = Recorded  # type: ignore[misc]
    try:
        fair_cards(key, 8)
    finally:
        fair.HmacStream = original  # type: ignore[misc]
    words = np.frombuffer(shoe_stream(key, 8), dtype=">u4").tolist()
    assert words == read and len(words) >= 415
    raw = shoe_stream(key, 8, raw=True)
    assert raw.startswith(shoe_stream(key, 8)) and len(raw) % 32 == 0 and len(raw) - len(words) * 4 < 32


def test_a_seeded_stream_is_its_shoes_one_after_another() -> None:
    data = stream_bytes(4_000, seed=5)  # three shoes hold about 4,990 bytes
    first, second = shoe_stream(_key(5, 1), 8), shoe_stream(_key(5, 2), 8)
    assert data == (first + second + shoe_stream(_key(5, 3), 8))[:4_000]
    out = io.BytesIO()
    assert write_stream(out, 100, seed=5) == 100 and out.getvalue() == data[:100]
    with pytest.raises(ConfigurationError, match="positive"):
        stream_bytes(0)


def test_the_command_dumps_the_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "stream.bin"
    assert main(["certify", "--stream", str(target), "--bytes", "4096", "--seed", "5"]) == 0
    assert target.read_bytes() == stream_bytes(4096, seed=5)
    assert "4,096 bytes" in capsys.readouterr().err
    assert main(["certify", "--stream", str(target), "--seed", "5"]) == 2  # a file needs --bytes
    assert "needs --bytes" in capsys.readouterr().err
    assert main(["certify", "--raw"]) == 2


def test_the_package_hash_follows_the_files_not_their_place(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        (root / "sub").mkdir(parents=True)
        (root / "a.py").write_text("x = 1\n")
        (root / "sub" / "b.py").write_text("y = 2\n")
        (root / "__pycache__").mkdir()
        (root / "__pycache__" / "a.cpython-311.pyc").write_bytes(bytes(range(9)) if root == one else b"")
    assert package_hash(one) == package_hash(two)
    (two / "sub" / "b.py").write_text("y = 3\n")
    assert package_hash(one) != package_hash(two)
    assert len(package_hash()) == 64


def _summary(code: str, p_values: list[float], uniformity: float, subs: tuple[NistSummary, ...] = ()) -> NistSummary:
    share = sum(p >= ALPHA for p in p_values) / len(p_values)
    return NistSummary(code, code, len(p_values), tuple(p_values), share, (0.96, 1.02), uniformity, True, (), subs)


def test_a_nist_test_enters_the_verdict_as_one_bonferroni_finding() -> None:
    fine = _summary("frequency", [0.5] * 100, 0.4)
    assert nist_finding(fine).p_value == pytest.approx(0.8) and nist_finding(fine).code == "nist-frequency"
    # eight of a hundred sequences failing at 1%: binomial tail about 6e-5, doubled, times two sub-tests
    subs = (_summary("serial:1", [0.001] * 8 + [0.5] * 92, 0.3), _summary("serial:2", [0.5] * 100, 0.9))
    bad = nist_finding(_summary("serial", [0.001] * 8 + [0.5] * 192, 0.3, subs))
    assert bad.p_value < 1e-3 and "2 sub-test(s)" in bad.what


DIEHARDER_OUTPUT = """#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
   diehard_birthdays|   0|       100|     100|0.06485680|  PASSED
      diehard_operm5|   0|   1000000|     100|0.99741360|   WEAK
 sts_serial|  16|    100000|     100|0.00000012|  FAILED
"""


def test_dieharder_s_table_is_read() -> None:
    rows = parse_dieharder(DIEHARDER_OUTPUT)
    assert [(r.test, r.ntup, r.assessment) for r in rows] == [
        ("diehard_birthdays", 0, "PASSED"), ("diehard_operm5", 0, "WEAK"), ("sts_serial", 16, "FAILED")]
    assert rows[2].p_value == pytest.approx(1.2e-7)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("dieharder") is None, reason="Debian's dieharder is not installed")
def test_dieharder_runs_on_the_server_s_stream() -> None:
    rows, finding = dieharder("0", seed=3, decks=8, timeout=300)
    assert [r.test for r in rows] == ["diehard_birthdays"] and finding.code == "dieharder"
    assert finding.p_value == pytest.approx(min(1.0, rows[0].p_value))


def test_the_stream_tests_need_the_server_s_shuffle() -> None:
    from baccarat.reports.defects import PerShoe

    with pytest.raises(ConfigurationError, match="server's stream"):
        certify(10, shuffler=PerShoe(), nist_sequences=1)
    with pytest.raises(ConfigurationError, match="non-negative"):
        certify(10, nist_sequences=-1)
