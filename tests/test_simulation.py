"""Simulation: the kernels deal like the engine, means agree with the exact analysis,
results do not depend on the workers (local processes or a real Dask cluster), counting."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from baccarat.analysis.analyze import analyze
from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.block import CARD_KINDS
from baccarat.analysis.composition import Composition
from baccarat.cli import main
from baccarat.coup import deal_coup
from baccarat.errors import ConfigurationError
from baccarat.presets import EZ, get_game
from baccarat.shoe import Shoe, seeded_rng, shuffle
from baccarat.sim import kernels
from baccarat.sim.counting import PRESETS, CountPlan, _exact_ev, _polynomial, run_count
from baccarat.sim.report import summarize
from baccarat.sim.run import Plan, run
from baccarat.sim.tables import punto_banco_tables, shoe_tables, strategy_draws


def _engine_keys(cards, cut_card):
    """Coup keys of one shoe dealt by the engine's Shoe and deal_coup."""
    shoe = Shoe(cards, cut_card=cut_card, burn=True)
    keys = []
    while not shoe.finished and shoe.can_start_coup(6):
        shoe.start_coup(6)
        coup = deal_coup(shoe.draw)
        shoe.end_coup()
        values = [card.value for _, card in coup.deal_order]
        extra = values[4:] + [0] * (6 - len(values))
        two_card_totals = (values[0] + values[2]) % 10 * 10 + (values[1] + values[3]) % 10
        keys.append(two_card_totals * 100 + extra[0] * 10 + extra[1])
    return keys


@pytest.mark.parametrize(("decks", "cut_card", "seed"), [(8, 14, 1), (8, 14, 2), (1, 0, 3), (1, 26, 4), (6, 60, 5)])
def test_kernel_deals_every_shoe_like_the_engine(decks, cut_card, seed):
    cards = shuffle([CARD_KINDS[k] for k in range(52)] * decks, seeded_rng(seed))
    values = np.array([card.value for card in cards], dtype=np.int64)
    tables, shoe = punto_banco_tables("ez"), shoe_tables(decks)
    keys = np.empty(len(cards), dtype=np.int64)
    n = kernels.punto_banco_shoe(values, shoe.burn, cut_card, tables.player_draws, tables.banker_draws,
                                 tables.natural, keys)
    assert list(keys[:n]) == _engine_keys(cards, cut_card)


def test_shuffle_is_a_permutation_and_depends_on_the_state():
    deck = np.arange(416, dtype=np.int64)
    one, two = deck.copy(), deck.copy()
    kernels.shuffle_in_place(one, np.array([1, 2, 3, 4], dtype=np.uint64))
    kernels.shuffle_in_place(two, np.array([1, 2, 3, 5], dtype=np.uint64))
    assert sorted(one) == list(deck) and not np.array_equal(one, deck) and not np.array_equal(one, two)
    counts = np.zeros(6, dtype=np.int64)
    state = np.array([9, 8, 7, 6], dtype=np.uint64)
    for _ in range(60_000):
        counts[kernels.below(state, 6)] += 1
    assert np.all(np.abs(counts - 10_000) < 500)  # about 5 standard deviations


def _plan(game, shoes, seed, **kwargs):
    chosen = get_game(game, paytable=kwargs.pop("paytable", None))
    draws = strategy_draws(chosen, 8, "composition").tobytes() if chosen.kind == "lucky_draw" else None
    return chosen, Plan(chosen.code, shoes, seed, paytable=chosen.paytable, draws=draws, **kwargs)


@pytest.mark.parametrize(("game", "paytable"), [("mini", None), ("ez", None), ("lucky-draw", 1), ("lucky-draw", 2)])
def test_simulated_means_agree_with_the_exact_analysis(game, paytable):
    chosen, plan = _plan(game, 4000, 11, paytable=paytable)
    result = summarize(chosen, plan, run(plan))
    assert result.hands > 300_000
    for wager in result.wagers:
        assert abs(wager.mean - wager.exact) < 4 * wager.std_error, wager.code
        assert sum(wager.events.values()) == result.hands


def test_event_counts_follow_the_engines_classifiers():
    chosen, plan = _plan("ez", 500, 5)
    result = summarize(chosen, plan, run(plan))
    by_code = {w.code: w.events for w in result.wagers}
    assert by_code["dragon_7"]["Dragon 7"] == by_code["banker"]["Dragon 7 (Banker pushes)"]
    assert by_code["player"]["Tie"] == by_code["tie"]["Tie"]


def test_same_seed_same_result_for_one_and_two_workers():
    _, plan = _plan("lucky-draw", 5000, 21, paytable=1, chunk_size=2000)  # three chunks
    one, two = run(plan, workers=1), run(plan, workers=2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    _, other = _plan("lucky-draw", 5000, 22, paytable=1, chunk_size=2000)
    assert not np.array_equal(run(other)[0], one[0])


def test_bad_plans_are_refused():
    with pytest.raises(ConfigurationError):
        Plan("ez", 0, 1)
    with pytest.raises(ConfigurationError):
        Plan("ez", 10, -1)
    with pytest.raises(ConfigurationError):
        Plan("ez", 10, 1, cut_card=300)
    with pytest.raises(ConfigurationError):
        Plan("lucky-draw", 10, 1)  # no strategy
    with pytest.raises(ConfigurationError):
        run(Plan("ez", 10, 1), workers=0)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A real local Dask cluster: the ``dask scheduler`` and ``dask worker`` commands."""
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.fail("the dask command is not installed")
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    common = {"cwd": folder, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([dask, "scheduler", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(scheduler_file)], **common)
    worker = subprocess.Popen([dask, "worker", "--scheduler-file", str(scheduler_file), "--nworkers", "2",
                               "--nthreads", "1", "--no-dashboard"], **common)
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        from dask.distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in (worker, scheduler):
            process.terminate()
        for process in (worker, scheduler):
            process.wait(timeout=30)


def test_a_dask_cluster_gives_the_single_process_result(dask_cluster):
    _, plan = _plan("ez", 6500, 31, chunk_size=2000)  # four chunks
    local, remote = run(plan), run(plan, scheduler=dask_cluster)
    assert np.array_equal(local[0], remote[0]) and np.array_equal(local[1], remote[1])
    count = CountPlan("ez", "dragon_7", PRESETS["dragon-7"].tags, 4, 4500, 7, chunk_size=1000)
    assert run_count(count) == run_count(count, scheduler=dask_cluster)


# --- counting ---------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_tags_have_the_signs_of_the_exact_effects_of_removal(preset):
    count = PRESETS[preset]
    eor = next(w.eor for w in analyze(EZ, Composition.full(8), eor=True).wagers if w.code == count.wager)
    assert eor is not None
    by_label = [eor[v] for v in (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)]
    for tag, effect in zip(count.tags, by_label, strict=True):
        if tag:
            assert (tag > 0) == (effect > 0)


def test_perfect_information_kernel_matches_the_batch_analyzer():
    evaluator = BatchEvaluator(EZ)
    row = evaluator.codes.index("dragon_7")
    parent, last, earlier, coefficients = _polynomial("ez", row)
    monomial = np.empty(len(parent) - len(coefficients))
    for shoe in [(128,) + (32,) * 9, (20, 3, 9, 1, 0, 7, 4, 8, 2, 5)]:
        counts = np.array(shoe, dtype=np.int64)
        exact = evaluator.expected_values(counts[None, :], order="value")[0, row]
        assert _exact_ev(counts, parent, last, earlier, coefficients, monomial) == pytest.approx(exact, abs=1e-12)


def test_counting_is_reproducible_and_the_dragon_count_has_an_edge():
    plan = CountPlan("ez", "dragon_7", PRESETS["dragon-7"].tags, 4, 8000, 3, chunk_size=2000)
    one, two = run_count(plan), run_count(plan, workers=2)
    assert one == two
    assert one.edge_when_betting > 0 > analyze(EZ, Composition.full(8)).wagers[3].expected_value
    assert 0 < one.bet_fraction < 0.3 and 75 < one.hands_per_shoe < 85
    never = run_count(CountPlan("ez", "dragon_7", PRESETS["dragon-7"].tags, 10**6, 100, 3))
    assert never.bets == 0 and never.win == 0


def test_bad_counting_input_is_refused():
    tags = PRESETS["dragon-7"].tags
    with pytest.raises(ConfigurationError):
        CountPlan("lucky-draw", "enter", tags, 4, 10, 1)
    with pytest.raises(ConfigurationError):
        CountPlan("ez", "dragon_bonus_player", tags, 4, 10, 1)
    with pytest.raises(ConfigurationError):
        CountPlan("ez", "dragon_7", tags, float("nan"), 10, 1)


# --- the command line ---------------------------------------------------------------


def test_simulate_json(capsys):
    assert main(["simulate", "ez", "--shoes", "300", "--seed", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "ez" and doc["shoes"] == 300 and doc["seed"] == 4 and doc["hands"] > 20_000
    assert list(doc["wagers"]) == ["player", "banker", "tie", "dragon_7", "panda_8"]
    banker = doc["wagers"]["banker"]
    assert {"mean", "std_error", "ci95", "exact", "events"} <= set(banker)
    assert banker["ci95"][0] < banker["mean"] < banker["ci95"][1]
    assert sum(banker["events"].values()) == doc["hands"]


def test_simulate_count_json_and_text(capsys):
    assert main(["simulate", "ez", "--shoes", "300", "--seed", "4", "--count", "panda-8", "--bound-shoes", "50",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["count"]["wager"] == "panda_8" and doc["count"]["perfect_information"]["shoes"] == 50
    assert main(["simulate", "mini", "--shoes", "100", "--seed", "4", "--count", "0,0,0,-1,-1,-1,-1,2,2,0",
                 "--wager", "tie", "--trigger", "2", "--bound-shoes", "0"]) == 0
    assert "Counting tie in mini" in capsys.readouterr().out


@pytest.mark.parametrize("args", [
    ["ez", "--strategy", "total"],
    ["lucky-draw", "--strategy", "sometimes"],
    ["ez", "--trigger", "3"],
    ["ez", "--count", "1,2,3"],
    ["ez", "--count", "0,0,0,0,0,0,0,0,0,1"],
    ["lucky-draw", "--count", "dragon-7"],
    ["ez", "--shoes", "0"],
    ["ez", "--cut-card", "300"],
    ["ez", "--workers", "0"],
])
def test_simulate_refuses_bad_input(capsys, args):
    assert main(["simulate", *args, "--shoes" if "--shoes" not in args else "--seed", "10"]) == 2
    assert capsys.readouterr().out == ""
