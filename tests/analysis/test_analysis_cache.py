"""The on-disk cache of exact results: keyed by inputs and code, never stale, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from baccarat.analysis import analyze as analysis_module
from baccarat.analysis import cache as disk
from baccarat.cli.app import main


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BACCARAT_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_a_value_is_computed_once_then_read(folder):
    calls = []

    def compute():
        calls.append(1)
        return {"banker": -0.010579, "why": [1, 2]}

    assert disk.json_value("demo", {"decks": 8}, compute) == {"banker": -0.010579, "why": [1, 2]}
    assert disk.json_value("demo", {"decks": 8}, compute) == {"banker": -0.010579, "why": [1, 2]}
    assert disk.json_value("demo", {"decks": 6}, compute) == {"banker": -0.010579, "why": [1, 2]}
    assert len(calls) == 2  # one per key
    assert disk.text("demo", {"a": 1}, lambda: "table\n") == "table\n" == disk.text("demo", {"a": 1}, lambda: "")
    stored = disk.arrays("demo", {}, lambda: {"x": np.arange(3, dtype=np.int8)})
    again = disk.arrays("demo", {}, lambda: {"x": np.zeros(1)})
    assert again["x"].dtype == np.int8 and np.array_equal(stored["x"], again["x"])
    kept = sorted(path.relative_to(folder).parent.as_posix() + path.suffix for path in folder.rglob("*"))
    assert kept == [".", "demo.json", "demo.json", "demo.npz", "demo.txt"]  # no temporary file left behind


def test_a_failed_write_leaves_no_temporary_file_and_no_entry(folder):
    def broken(out):
        raise OSError("disk full")

    disk._write(str(folder / "demo" / "entry.json"), broken)
    assert [path.name for path in folder.rglob("*")] == ["demo"]


def test_a_change_to_the_code_makes_new_keys(folder, monkeypatch):
    first = disk.entry_path("demo", {"decks": 8}, ".json")
    disk.json_value("demo", {"decks": 8}, lambda: 1)
    monkeypatch.setattr(disk, "code_digest", lambda: "another version of the rules")
    assert disk.entry_path("demo", {"decks": 8}, ".json") != first
    assert disk.json_value("demo", {"decks": 8}, lambda: 2) == 2
    assert disk.entry_path("demo", {"decks": 8}, ".json", whole_package=False) != first


def test_the_digest_covers_the_rules_but_not_the_server():
    sources = {Path(path).relative_to(disk._PACKAGE).as_posix() for path in disk._sources(disk._PACKAGE)}
    assert {"core/registry.py", "core/tableau.py", "core/games.py", "analysis/punto.py", "sim/kernels.py"} <= sources
    assert not any(name.startswith(("server/", "cli/")) for name in sources)


def test_damaged_or_unwritable_entries_are_only_misses(folder):
    path = disk.entry_path("demo", {"k": 1}, ".json")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert disk.json_value("demo", {"k": 1}, lambda: 3) == 3
    assert json.loads(path.read_text()) == 3  # and the entry is repaired
    (folder / "blocked").write_text("a file where a folder should be")
    assert disk.text("blocked", {}, lambda: "computed") == "computed"


def test_the_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("BACCARAT_CACHE_DIR", "off")
    assert disk.folder() is None and disk.entry_path("demo", {}, ".json") is None
    assert disk.json_value("demo", {}, lambda: 5) == 5


def _must_not_run(*args, **kwargs):
    raise AssertionError("the analysis ran although its report was kept")


def test_analyze_from_the_cache_is_the_analysis(folder, monkeypatch, capsys):
    outputs = []
    for args in (["ez", "--eor"], ["ez", "--eor", "--decks", "6"],
                 ["lucky-draw", "--paytable", "2", "--strategy", "total", "--json"],
                 ["mini", "--shoe", "20,3,9,1,0,7,4,8,2,5"]):
        monkeypatch.setenv("BACCARAT_CACHE_DIR", "off")
        assert main(["analyze", *args]) == 0
        computed = capsys.readouterr().out
        monkeypatch.setenv("BACCARAT_CACHE_DIR", str(folder))
        assert main(["analyze", *args]) == 0  # computed and kept
        assert capsys.readouterr().out == computed
        with monkeypatch.context() as patched:
            patched.setattr(analysis_module, "analyze", _must_not_run)
            assert main(["analyze", *args]) == 0  # read back
        assert capsys.readouterr().out == computed
        outputs.append(computed)
    assert len(set(outputs)) == len(outputs) == len(list((folder / "analyze").iterdir()))
    for refused in (["ez", "--shoe", "1,2,3"], ["ez", "--decks", "0"]):
        assert main(["analyze", *refused]) == 2  # bad input is still refused, and nothing is kept
    assert len(list((folder / "analyze").iterdir())) == len(outputs)
