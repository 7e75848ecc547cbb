"""Simulation: the kernels deal like the engine, means agree with the exact analysis,
results do not depend on the workers (local processes or a real Dask cluster), counting."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.analysis.analyze import analyze
from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.block import CARD_KINDS
from baccarat.analysis.composition import Composition
from baccarat.cli.app import main
from baccarat.core.coup import deal_coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.lucky import BLOCK_EVENTS, LuckyDrawHand
from baccarat.core.registry import EZ, get_game
from baccarat.core.shoe import Shoe, seeded_rng, shuffle
from baccarat.sim import compiled, kernels
from baccarat.sim.counting import PRESETS, CountPlan, _polynomial, run_count
from baccarat.sim.outcome_tables import lucky_draw_tables, punto_banco_tables, shoe_tables, strategy_draws
from baccarat.sim.results import summarize
from baccarat.sim.run import Plan, chunk_state, execute, run
from baccarat.sim.seeds import state_words

from ..conftest import examples


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
    values = np.array([card.value for card in cards], dtype=np.int32)
    tables, shoe = punto_banco_tables("ez"), shoe_tables(decks)
    keys = np.empty(len(cards), dtype=np.int64)
    histogram, net = np.zeros(10_000, dtype=np.int64), np.zeros(len(EZ.wagers))
    n = kernels.punto_banco_shoe(values, shoe.burn, cut_card, tables.player_draws, tables.banker_draws,
                                 tables.natural, tables.pays_by_key, keys, histogram, net)
    engine = _engine_keys(cards, cut_card)
    assert list(keys[:n]) == engine
    assert histogram.sum() == n and all(histogram[key] == engine.count(key) for key in set(engine))
    assert np.array_equal(net, tables.pays_by_key[engine].sum(axis=0))  # small whole numbers: exact


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


def test_xoshiro_and_the_shuffle_draw_as_published():
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert [int(kernels.next_u64(state)) for _ in range(2)] == [11520, 0]  # xoshiro256** from s = {1, 2, 3, 4}
    # The shuffle keeps the generator in registers; it must still draw exactly as below() does.
    cards, state = np.arange(416, dtype=np.int32), np.array([5, 6, 7, 8], dtype=np.uint64)
    expected, expected_state = cards.copy(), state.copy()
    for i in range(415, 0, -1):
        j = kernels.below(expected_state, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    kernels.shuffle_in_place(cards, state)
    assert np.array_equal(cards, expected) and np.array_equal(state, expected_state)


def _engine_lucky_draw_histogram(cards, draws, cut_card):
    """The Lucky Draw kernel's histogram of one shoe dealt by the engine's Shoe and LuckyDrawHand."""
    histogram = np.zeros(200 + len(BLOCK_EVENTS), dtype=np.int64)
    shoe = Shoe(cards, cut_card=cut_card, burn=True)
    while not shoe.finished and shoe.can_start_coup(6):
        shoe.start_coup(6)
        first, up, second = shoe.draw(), shoe.draw(), shoe.draw()  # seat, dealer's up card, seat
        drew = bool(draws[first.value, up.value, second.value])
        seat = (first, second, shoe.draw()) if drew else (first, second)
        hand = LuckyDrawHand(seat, (up, shoe.draw()))
        if not hand.complete:
            hand = LuckyDrawHand(seat, (*hand.dealer_cards, shoe.draw()))
        shoe.end_coup()
        histogram[drew * 100 + hand.seat_total * 10 + hand.dealer_total] += 1
        histogram[200 + BLOCK_EVENTS.index(hand.block_bonus)] += 1
    return histogram


@settings(max_examples=examples(300), deadline=None)
@given(seed=st.one_of(st.integers(0, 2**63 - 1), st.integers(0, 2**130), st.sampled_from([0, 1, 2**32 - 1, 2**32])),
       key=st.lists(st.integers(0, 2**40), max_size=3), words=st.integers(1, 6))
def test_the_seed_words_are_numpy_s_seed_sequence(seed, key, words):
    """Chunks' generator states come from a plain-Python SeedSequence (no numpy.random import): numpy's numbers."""
    expected = np.random.SeedSequence(seed, spawn_key=tuple(key)).generate_state(words, np.uint64)
    assert state_words(seed, tuple(key), words) == [int(w) for w in expected]
    if len(key) == 1 and words == 4:
        assert chunk_state(seed, key[0]).dtype == np.uint64
        assert np.array_equal(chunk_state(seed, key[0]), expected)


@pytest.mark.slow
def test_a_simulation_does_not_import_numpy_random():
    code = ("import sys; from baccarat.cli.app import main; main(['simulate', 'ez', '--shoes', '3', '--seed', '1']); "
            "print('numpy.random' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip().endswith("False")


@pytest.mark.parametrize(("paytable", "strategy", "cut_card"), [(1, "composition", 14), (2, "0,1,2,3,4,5", 60)])
def test_lucky_draw_kernel_deals_every_shoe_like_the_engine(paytable, strategy, cut_card):
    tables, shoe = lucky_draw_tables(paytable), shoe_tables(8)
    draws = strategy_draws(get_game("lucky-draw", paytable=paytable), 8, strategy)
    state = chunk_state(3, 0)
    histogram, sums = kernels.lucky_draw_chunk(30, state.copy(), shoe.deck, shoe.value_of, shoe.burn, cut_card,
                                               tables.dealer_draws, draws.astype(np.int64), tables.enter_pay,
                                               tables.block_event, tables.block_pay)
    expected = np.zeros_like(histogram)
    cards = shoe.deck.copy()
    for _ in range(30):  # the kernel's own shuffles, each of the previous shoe's order
        kernels.shuffle_in_place(cards, state)
        expected += _engine_lucky_draw_histogram([CARD_KINDS[k] for k in cards], draws, cut_card)
    assert np.array_equal(histogram, expected)
    assert sums[2, 0] == expected[200:].sum() and sums[2, 2] == 30  # hands and shoes
    assert sums[0, 0] == pytest.approx(histogram[:200] @ tables.enter_pay)
    assert sums[1, 0] == pytest.approx(histogram[200:] @ tables.block_pay)


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


@pytest.mark.parametrize("game", ["ez", "mini"])
def test_same_seed_same_result_for_any_number_of_workers(game):
    _, plan = _plan(game, 3100, 23, chunk_size=500)  # seven chunks, the last one short
    one = run(plan)
    for workers in (2, 3, 9):
        other = run(plan, workers=workers)
        assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1]), workers


def _failing_chunk(plan, index):
    if index == 2:
        raise ValueError("chunk two")
    return index


def test_a_failing_worker_is_reported():
    _, plan = _plan("ez", 1000, 1, chunk_size=100)
    with pytest.raises(RuntimeError, match="ValueError: chunk two"):
        execute(plan, _failing_chunk, workers=2)
    assert execute(plan, lambda p, i: i * i, workers=1) == [i * i for i in range(10)]


def _compiled_or_skip():
    loaded = compiled.kernels()
    if not loaded.ahead_of_time:
        if os.environ.get("BACCARAT_KERNELS", "").strip().lower() == "jit":
            pytest.skip("BACCARAT_KERNELS=jit")
        if shutil.which("cc") or shutil.which("gcc"):
            pytest.fail("a C compiler is here but the kernels were not compiled ahead of time")
        pytest.skip("no C compiler: the kernels run through numba's JIT")
    return loaded


def test_kernels_compiled_ahead_of_time_deal_exactly_like_the_jit():
    aot = _compiled_or_skip()
    shoe, pb, ez, ld = shoe_tables(6), punto_banco_tables("mini"), punto_banco_tables("ez"), lucky_draw_tables(2)
    draws = strategy_draws(get_game("lucky-draw", paytable=2), 6, "total").astype(np.int64)
    row = EZ.wagers.index(EZ.wager("dragon_7"))
    tags = np.array([0, 0, 0, 0, -1, -1, -1, -1, 2, 2])
    calls = [
        ("punto_banco_chunk", (777, shoe.deck_values, shoe.burn, 30, pb.player_draws, pb.banker_draws, pb.natural,
                               pb.pays_by_key)),
        ("lucky_draw_chunk", (555, shoe.deck, shoe.value_of, shoe.burn, 30, ld.dealer_draws, draws, ld.enter_pay,
                              ld.block_event, ld.block_pay)),
        ("punto_banco_deals_chunk", (40, shoe.deck, shoe.value_of, shoe.burn, 30, pb.player_draws, pb.banker_draws,
                                     pb.natural)),
    ]
    for perfect, true_count in ((False, True), (False, False), (True, True)):
        polynomial = _polynomial("ez", row) if perfect else (np.zeros(2, dtype=np.int64),) * 3 + (np.zeros(1),)
        calls.append(("count_chunk", (300, shoe.deck, shoe.value_of, shoe.burn, 30, ez.player_draws, ez.banker_draws,
                                      ez.natural, ez.pays[row], tags, 1.5, true_count, 2, perfect, *polynomial)))
    for name, (shoes, *rest) in calls:
        # Each call gets its own copy of the generator's state: the kernels advance it in place.
        ahead = getattr(aot, name)(shoes, chunk_state(9, 4), *rest)
        jit = getattr(kernels, name)(shoes, chunk_state(9, 4), *rest)
        for one, two in zip(*((ahead, jit) if isinstance(jit, tuple) else ((ahead,), (jit,))), strict=True):
            assert np.array_equal(one, two), name


def test_kernels_compiled_ahead_of_time_refuse_arrays_of_another_type():
    aot = _compiled_or_skip()
    shoe, pb = shoe_tables(8), punto_banco_tables("ez")
    with pytest.raises(TypeError, match="argument 2 must be a C-contiguous 1-d int32 array"):
        aot.punto_banco_chunk(1, chunk_state(1, 0), shoe.deck_values.astype(np.int64), shoe.burn, 14,
                              pb.player_draws, pb.banker_draws, pb.natural, pb.pays_by_key)
    with pytest.raises(TypeError, match="argument 8"):
        aot.punto_banco_chunk(1, chunk_state(1, 0), shoe.deck_values, shoe.burn, 14, pb.player_draws,
                              pb.banker_draws, pb.natural, pb.pays.T)  # the right shape, but not C-contiguous


@pytest.mark.slow
def test_simulate_starts_without_importing_numba():
    _compiled_or_skip()
    code = ("import sys; from baccarat.cli.app import main; "
            "code = main(['simulate', 'ez', '--shoes', '20', '--seed', '1', '--workers', '2', '--json']); "
            "print('numba' in sys.modules, code, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split()[-2:] == ["False", "0"] and json.loads(done.stdout)["shoes"] == 20


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


def test_a_cluster_without_dask_installed_names_the_extra(monkeypatch):
    """Dask is the ``cluster`` extra (the table's install does without it): ``--scheduler`` without it says what to
    install, before anything is dealt."""
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # what an install without the extra gives
    with pytest.raises(ConfigurationError, match=r"pip install 'baccarat\[cluster\]'"):
        run(Plan("ez", 10, 1), scheduler="tcp://127.0.0.1:8786")


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


@pytest.mark.slow
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
        value = kernels.exact_ev(counts, parent, last, earlier, coefficients, monomial)
        assert value == pytest.approx(exact, abs=1e-12)


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
    ["ez", "--count", "dragon-7", "--initial-count", "99999999999999999999999"],  # once an OverflowError
    ["ez", "--count", "dragon-7", "--initial-count", "-1000001"],
    ["ez", "--scheduler", "garbage"],  # no port: once distributed's ValueError as a traceback
    ["ez", "--scheduler", "nonsense://host:8786"],
])
def test_simulate_refuses_bad_input(capsys, args):
    assert main(["simulate", *args, "--shoes" if "--shoes" not in args else "--seed", "10"]) == 2
    assert capsys.readouterr().out == ""


def test_an_initial_count_is_a_whole_number_within_the_bound():
    plan = CountPlan("ez", "dragon_7", PRESETS["dragon-7"].tags, 4.0, 10, 1, initial_count=-1_000_000)
    assert plan.initial_count == -1_000_000
    for wrong in (1_000_001, 2.5, True, "3"):
        with pytest.raises(ConfigurationError, match="initial count must be a whole number"):
            CountPlan("ez", "dragon_7", PRESETS["dragon-7"].tags, 4.0, 10, 1, initial_count=wrong)


@pytest.mark.slow
def test_a_scheduler_that_does_not_answer_is_said_in_words(monkeypatch):
    from baccarat.core.errors import UnavailableError
    from baccarat.sim import run as running

    monkeypatch.setattr(running, "SCHEDULER_TIMEOUT", "1s")
    with pytest.raises(UnavailableError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:1 .*check"):
        run(Plan("ez", 10, 1), scheduler="tcp://127.0.0.1:1")


def _strict_json(text):
    """The document, refusing NaN and Infinity (which strict JSON readers refuse)."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def test_one_shoe_has_no_interval_in_words_or_json(capsys):
    assert main(["simulate", "ez", "--shoes", "1", "--seed", "4", "--json"]) == 0
    banker = _strict_json(capsys.readouterr().out)["wagers"]["banker"]
    assert banker["std_error"] is None and banker["ci95"] == [None, None] and isinstance(banker["mean"], float)
    assert main(["simulate", "ez", "--shoes", "1", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "(one shoe: no standard error or interval)" in text and "nan" not in text


def test_a_count_that_never_bets_has_no_edge_in_words_or_json(capsys):
    args = ["simulate", "ez", "--shoes", "1", "--seed", "4", "--count", "dragon-7", "--trigger", "1e300",
            "--bound-shoes", "0"]
    assert main([*args, "--json"]) == 0
    count = _strict_json(capsys.readouterr().out)["count"]
    assert count["bets"] == 0 and count["edge_when_betting"] is None and count["win_per_shoe_std_error"] is None
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "edge when betting none (no bets)" in text and "(one shoe: no error)" in text and "nan" not in text


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
@pytest.mark.slow
def test_a_console_without_the_symbols_gets_question_marks_not_a_traceback(encoding, tmp_path):
    """Suits, dashes and ± on a console whose encoding lacks them (Windows' cp1252, an ASCII terminal)."""
    exe = shutil.which("baccarat", path=os.path.dirname(sys.executable)) or "baccarat"
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    for args, typed in ((["play", "ez", "--seed", "1"], "banker=10\n"), (["analyze", "mini"], ""),
                        (["simulate", "ez", "--shoes", "10", "--seed", "2"], "")):
        done = subprocess.run([exe, *args], input=typed.encode(), capture_output=True, env=env, timeout=120)
        assert done.returncode == 0, (args, done.stderr.decode(errors="replace")[-400:])
        assert b"Traceback" not in done.stderr
        done.stdout.decode(encoding)  # what was written is the console's own encoding
        if encoding == "ascii":  # every suit, dash and ± became "?"
            assert b"?" in done.stdout


# --- wagers on the cards themselves -----------------------------------------------------------------------

CARD_GAME = """
[game]
code = "cards-test"
name = "Wagers on the cards"
procedure = "punto_banco"
minimum = "1.00"

[[wagers]]
code = "banker"
name = "Banker"
maximum = "100.00"
events = [
  { event = "Banker wins", when = { winner = "banker" }, pays = "19/20" },
  { event = "Tie", when = { winner = "tie" }, pays = "push" },
  { event = "Player wins", pays = "lose" },
]

[[wagers]]
code = "colour_match"
name = "Colour Match"
maximum = "100.00"
events = [
  { event = "One colour", when = { one_colour_first_four = true }, pays = "6 for 1" },
  { event = "Mixed", pays = "lose" },
]

[[wagers]]
code = "three_of_a_rank"
name = "Three of a rank"
maximum = "100.00"
events = [
  { event = "Three or more of a rank", when = { most_of_a_rank = [3, 4, 5, 6] }, pays = "10" },
  { event = "A red third card", when = { player_third_colour = "red", banker_third_colour = "red" }, pays = "3" },
  { event = "Player pair", when = { player_pair = true }, pays = "2" },
  { event = "Else", pays = "lose" },
]
"""


@pytest.fixture()
def card_game(tmp_path):
    from baccarat.core.registry import unregister
    from baccarat.core.rulesfile import load_rules

    path = tmp_path / "cards.toml"
    path.write_text(CARD_GAME, encoding="utf-8")
    game = load_rules(path)
    yield game
    unregister(game.code)


def test_the_deals_kernel_keeps_each_coup_s_cards_as_the_engine_deals_them(card_game):
    shoe, p = shoe_tables(8), punto_banco_tables(card_game.code)
    keys, dealt, shoe_of, hands = kernels.punto_banco_deals_chunk(
        20, chunk_state(3, 0), shoe.deck, shoe.value_of, shoe.burn, 14, p.player_draws, p.banker_draws, p.natural)
    assert len(keys) == hands.sum() == len(shoe_of) > 20 * 60 and np.array_equal(np.bincount(shoe_of), hands)
    for key, row in zip(keys, dealt, strict=True):
        player, banker = [CARD_KINDS[c] for c in row[:3] if c >= 0], [CARD_KINDS[c] for c in row[3:] if c >= 0]
        order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
        coup = deal_coup(iter(order).__next__)
        assert (coup.player_cards, coup.banker_cards) == (tuple(player), tuple(banker))
        # the key: the two-card totals, then the fifth and sixth cards' values (0 where not dealt)
        two = (sum(c.value for c in player[:2]) % 10) * 10 + sum(c.value for c in banker[:2]) % 10
        fifth = coup.deal_order[4][1].value if len(coup.deal_order) > 4 else 0
        sixth = coup.deal_order[5][1].value if len(coup.deal_order) > 5 else 0
        assert key == (two * 10 + fifth) * 10 + sixth


@pytest.mark.slow
def test_a_wager_on_the_cards_is_dealt_as_the_analysis_prices_it(card_game):
    plan = Plan(card_game.code, 4000, 13)
    result = summarize(card_game, plan, run(plan, workers=2))
    assert result.hands > 300_000
    for wager in result.wagers:
        assert abs(wager.mean - wager.exact) < 4 * wager.std_error, wager.code
        assert sum(wager.events.values()) == result.hands
    small = Plan(card_game.code, 400, 13)  # the same counts however many processes deal it
    assert np.array_equal(run(small, workers=1)[0], run(small, workers=3)[0])
