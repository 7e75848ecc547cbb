"""The command line's start-up and exit shortcuts (issue 17): one command built, a quick exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from baccarat.cli.app import _app_for, main
from baccarat.cli.common import app

CONSOLE = "import sys; from baccarat.cli.app import main; sys.argv = ['baccarat', *sys.argv[1:]]; sys.exit(main())"


def _console(*args: str) -> subprocess.CompletedProcess[str]:
    """``baccarat ARGS`` as the console script runs it (``main()`` with no arguments)."""
    return subprocess.run([sys.executable, "-c", CONSOLE, *args], capture_output=True, text=True, timeout=120)


def test_a_named_command_is_built_alone_and_anything_else_gets_every_command():
    alone = _app_for("void-round")
    assert [info.callback.__name__ for info in alone.registered_commands if info.callback] == ["void_round"]
    assert alone.registered_callback is app.registered_callback  # --version still works before the command
    for other in (None, "audit", "no-such-command"):
        assert _app_for(other) is app


def test_the_command_alone_parses_and_refuses_as_before(capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "--help"]) == 0
    assert "Usage: baccarat simulate [OPTIONS]" in capsys.readouterr().out
    assert main(["simulate", "ez", "--shoes", "0"]) == 2
    assert main(["--version", "simulate"]) == 0
    assert capsys.readouterr().out.startswith("baccarat ")
    assert main(["simulat", "ez"]) == 2
    assert "No such command" in capsys.readouterr().err


@pytest.mark.slow
def test_the_console_scripts_quick_exit_writes_everything_and_keeps_the_exit_code(capsys: pytest.CaptureFixture[str]):
    args = ["simulate", "ez", "--shoes", "30", "--seed", "5", "--workers", "2", "--json"]
    assert main(args) == 0
    in_process = json.loads(capsys.readouterr().out)
    done = _console(*args)
    assert done.returncode == 0 and json.loads(done.stdout) == in_process
    refused = _console("simulate", "ez", "--shoes", "0")
    assert refused.returncode == 2 and "--shoes" in refused.stderr
    analysed = _console("analyze", "mini", "--decks", "8")
    assert analysed.returncode == 0 and analysed.stdout.startswith("Mini-Baccarat, 8 decks")


EARLY = "import sys; from baccarat.cli.console import main; sys.argv = ['baccarat', *sys.argv[1:]]; sys.exit(main())"


@pytest.mark.parametrize("args", [
    ["simulate", "ez", "--shoes", "40000", "--seed", "3", "--workers", "2", "--json"],
    ["simulate", "--json", "--workers=3", "--seed=3", "--shoes=40000", "ez"],
    ["simulate", "mini", "--shoes", "40000", "--seed", "3", "--workers", "2", "--decks", "6", "--cut-card", "20",
     "--json"],
    ["simulate", "lucky-draw", "--shoes", "20000", "--seed", "3", "--workers", "2", "--json"],  # left to Typer
])
@pytest.mark.slow
def test_workers_started_before_the_command_line_give_the_same_result(capsys: pytest.CaptureFixture[str], args):
    """The console script forks a plain simulate run's workers before Typer (baccarat.cli.early_workers)."""
    one = [word for word in args if not word.startswith("--workers=")]
    if "--workers" in one:
        del one[one.index("--workers"):one.index("--workers") + 2]
    assert main(one) == 0  # one worker, in this process
    expected = json.loads(capsys.readouterr().out)
    done = subprocess.run([sys.executable, "-c", EARLY, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout) == expected


def test_early_workers_for_another_run_or_a_refused_command_are_ended(capsys: pytest.CaptureFixture[str]):
    from baccarat.cli import early_workers as early
    from baccarat.sim import early as sim_early

    spec = early.read_command_line(["simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "2"])
    assert spec == {"game": "ez", "shoes": 40000, "seed": 1, "workers": 2}
    assert main(["simulate", "ez", "--shoes", "40000", "--seed", "2", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    early.start(spec)
    assert sim_early.started()
    pids = list(sim_early._started[2][0])  # type: ignore[index]
    assert main(["simulate", "ez", "--shoes", "40000", "--seed", "2", "--workers", "2", "--json"]) == 0  # seed 2
    assert json.loads(capsys.readouterr().out) == expected and not sim_early.started()
    early.start(spec)
    pids += sim_early._started[2][0]  # type: ignore[index]
    assert main(["simulate", "ez", "--shoes", "0", "--seed", "1", "--workers", "2"]) == 2 and not sim_early.started()
    for pid in pids:  # every worker ended and reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("args", [
    ["simulate", "ez", "--shoes", "10", "--workers", "2"],  # a random seed
    ["simulate", "ez", "--shoes", "10", "--seed", "1", "--workers", "2", "--count", "dragon-7"],
    ["simulate", "ez", "--shoes", "1e5", "--seed", "1", "--workers", "2"],
    ["simulate", "ez", "--shoes", "10", "--shoes", "20", "--seed", "1", "--workers", "2"],
    ["simulate", "ez", "--shoes", "1" * 5000, "--seed", "1"],  # Python reads no such number: Typer refuses it
    ["simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "257"],  # nothing forked for it
    ["simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "0"],
    ["analyze", "ez"], ["--version"], [],
])
def test_the_early_start_reads_only_plain_simulate_command_lines(args):
    from baccarat.cli import early_workers as early

    assert early.read_command_line(args) is None


SHOE = "24,24,24,24,24,24,24,24,24,96"  # six decks, as a partly dealt shoe


@pytest.mark.parametrize("args", [
    ["analyze", "mini"],
    ["analyze", "--json", "ez"],
    ["analyze", "ez", "--decks=1", "--eor"],
    ["analyze", "lucky-draw", "--paytable", "2", "--strategy", "total", "--decks", "6", "--json"],
    ["analyze", "lucky-draw", "--strategy=composition", "--shoe", SHOE],
    ["analyze", "mini", f"--shoe={SHOE}", "--json"],
])
def test_a_plain_analyze_line_is_answered_without_typer_exactly_as_typer_answers_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path, args):
    """The console script answers these before importing Typer (baccarat.cli.analyze_text)."""
    from baccarat.cli.analyze_text import early_text

    monkeypatch.setenv("BACCARAT_CACHE_DIR", str(tmp_path))
    assert main(args) == 0
    printed = capsys.readouterr().out
    kept = list(tmp_path.rglob("*.txt"))
    assert len(kept) == 1 and kept[0].read_text() == printed
    assert early_text(args) == printed and list(tmp_path.rglob("*.txt")) == kept  # the same key: the kept report
    monkeypatch.setenv("BACCARAT_CACHE_DIR", "off")
    assert early_text(args) == printed  # computed again, without Typer


@pytest.mark.parametrize("args", [
    ["analyze"], ["analyze", "--help"], ["analyze", "mini", "ez"], ["analyze", "-h", "mini"],
    ["analyze", "mini", "--rules", "pairs.toml"], ["analyze", "mini", "--report", "par.html"],
    ["analyze", "ez", "--decks", "8", "--decks", "6"], ["analyze", "ez", "--json", "--json"],
    ["analyze", "ez", "--decks", "-1"], ["analyze", "ez", "--decks", "1e3"], ["analyze", "ez", "--decks", "+8"],
    ["analyze", "ez", "--decks"], ["analyze", "ez", "--shoe", "--json"], ["analyze", "ez", "--strategy", "best"],
    ["analyze", "ez", "--eor=yes"], ["analyze", "ez", "--decks", "1" * 5000], ["analyze", "ez", "--paytable", "0" * 7],
    ["simulate", "ez", "--shoes", "10"], ["--version"], [],
])
def test_anything_but_a_plain_analyze_line_is_left_to_typer(args):
    from baccarat.cli.analyze_text import read_command_line

    assert read_command_line(args) is None


@pytest.mark.parametrize("args", [
    ["analyze", "no-such-game"],
    ["analyze", "ez", "--strategy", "total"],  # Lucky Draw only
    ["analyze", "ez", "--decks", "0"],
    ["analyze", "ez", "--decks", "8", "--shoe", SHOE],
    ["analyze", "ez", "--shoe", "1,2,3"],
    ["analyze", "lucky-draw", "--paytable", "7"],
])
@pytest.mark.slow
def test_a_plain_line_that_is_refused_is_refused_by_typer_with_its_words_and_exit_code(args):
    from baccarat.cli.analyze_text import early_text, read_command_line

    assert read_command_line(args) is not None and early_text(args) is None
    done = subprocess.run([sys.executable, "-c", EARLY, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and "Usage: baccarat analyze" in done.stderr


@pytest.mark.slow
def test_the_console_script_answers_a_plain_analyze_line_without_loading_typer():
    probe = ("import sys; from baccarat.cli.analyze_text import early_text; "
             "text = early_text(['analyze', 'ez', '--decks', '2']); "
             "print(text.splitlines()[0], *(name in sys.modules for name in ('typer', 'baccarat.cli.app', 'pathlib', "
             "'tempfile')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    # Typer and the command modules, pathlib and tempfile: a third of a computed run, none needed
    assert done.stdout.strip() == "EZ Baccarat, 2 decks False False False False", done.stderr
    whole = subprocess.run([sys.executable, "-c", EARLY, "analyze", "ez", "--decks", "2"], capture_output=True,
                           text=True, timeout=120)
    assert whole.returncode == 0 and whole.stdout.startswith("EZ Baccarat, 2 decks")


def test_ctrl_c_while_a_plain_analyze_line_is_answered_ends_as_the_command_line_ends_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    from baccarat.cli import analyze_text as command
    from baccarat.cli import console

    def interrupted(args):
        raise KeyboardInterrupt

    import gc

    monkeypatch.setattr(command, "early_text", interrupted)
    monkeypatch.setattr(gc, "disable", lambda: None)  # the console script's; this process keeps its collector
    monkeypatch.setattr(sys, "argv", ["baccarat", "analyze", "mini"])
    assert console.main() == 130
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize("args", [
    ["simulate", "ez", "--shoes", "30", "--seed", "5"],
    ["simulate", "--json", "mini", "--seed=7", "--shoes=40000", "--workers", "2", "--decks", "6", "--cut-card", "20"],
    ["simulate", "ez", "--shoes", "40000", "--seed", "3", "--workers", "3", "--json"],
])
@pytest.mark.slow
def test_a_plain_simulate_line_is_answered_without_typer_exactly_as_typer_answers_it(
        capsys: pytest.CaptureFixture[str], args):
    """The console script deals these before importing Typer (baccarat.cli.simulate_text), its early
    workers taken as the command takes them."""
    assert main(args) == 0
    printed = capsys.readouterr().out
    done = subprocess.run([sys.executable, "-c", EARLY, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == printed
    probe = ("import sys; from baccarat.cli import early_workers as early, simulate_text as command; "
             f"text = command.early_text(early.read_command_line({args!r})); "
             "print(repr(text), 'typer' in sys.modules, 'baccarat.cli.app' in sys.modules)")
    alone = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert alone.stdout.strip() == f"{printed!r} False False", alone.stderr


@pytest.mark.parametrize("args", [
    ["simulate", "lucky-draw", "--shoes", "10", "--seed", "1"],  # its strategy: the command line's
    ["simulate", "no-such-game", "--shoes", "10", "--seed", "1"],
    ["simulate", "ez", "--shoes", "0", "--seed", "1"],
    ["simulate", "ez", "--shoes", "10", "--seed", "1", "--decks", "0"],
    ["simulate", "ez", "--shoes", "10", "--seed", "1", "--cut-card", "999"],
])
@pytest.mark.slow
def test_a_plain_simulate_line_left_or_refused_goes_to_typer(capsys: pytest.CaptureFixture[str], args):
    from baccarat.cli import early_workers as early
    from baccarat.cli import simulate_text as command

    spec = early.read_command_line(args)
    assert spec is not None and command.early_text(spec) is None
    expected = main(args)
    typer_said = capsys.readouterr()
    done = subprocess.run([sys.executable, "-c", EARLY, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == expected and done.stdout == typer_said.out
    assert (done.returncode == 0) == (typer_said.err == "") == (done.stderr == "")


@pytest.mark.slow
def test_a_closed_pipe_ends_a_plain_line_as_it_ends_typer_s_silently_with_1():
    for script in (EARLY, CONSOLE):  # the early path, and Typer's
        process = subprocess.Popen([sys.executable, "-c", script, "analyze", "ez", "--decks", "2"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before the command writes
        assert process.wait(timeout=120) == 1 and process.stderr.read() == b""


def test_a_shell_asking_for_completions_is_answered_by_typer(monkeypatch: pytest.MonkeyPatch):
    from baccarat.cli import console

    monkeypatch.setenv("_BACCARAT_COMPLETE", "complete_bash")
    assert console._early(["analyze", "ez", "--decks", "2"]) is None
    assert console._early(["simulate", "ez", "--shoes", "10", "--seed", "1"]) is None


def _watching_workers(body: str) -> str:
    """A script that records the workers the console script forks early, runs ``body`` (which runs the
    console script) and says on stderr whether each was reaped."""
    return """
import os, sys
from baccarat.core.errors import ConfigurationError
from baccarat.cli import early_workers as early, simulate_text as command
from baccarat.sim import early as sim_early
forked = []
started = early.start
def start(spec):
    started(spec)
    forked.extend(sim_early._started[2][0])
early.start = start
""" + body + """
for pid in forked:
    try:
        os.waitpid(pid, os.WNOHANG)
        print("left running", pid, file=sys.stderr)
    except ChildProcessError:
        print("reaped", pid, file=sys.stderr)
"""


FAILING = _watching_workers("""
def fail(spec):
    raise {error}("as if the early run failed")
command.early_text = fail
sys.argv = ["baccarat", "simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "2", "--json"]
from baccarat.cli.console import main
try:
    main()
except RuntimeError:
    pass
""")


@pytest.mark.slow
def test_workers_started_early_are_ended_whatever_ends_the_early_path(capsys: pytest.CaptureFixture[str]):
    failed = subprocess.run([sys.executable, "-c", FAILING.format(error="RuntimeError")], capture_output=True,
                            text=True, timeout=120)
    assert failed.stderr.count("reaped") == 2 and "left running" not in failed.stderr, failed.stderr


CTRL_C_WHILE_TYPER_LOADS = _watching_workers("""
command.early_text = lambda spec: None  # workers forked, the line left to Typer
class Interrupting:  # Ctrl-C while Typer is imported
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupting())
sys.argv = ["baccarat", "simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "2"]
from baccarat.cli.console import main
print("exit", main(), file=sys.stderr)
""")


@pytest.mark.slow
def test_ctrl_c_while_typer_loads_ends_the_early_workers_and_says_interrupted():
    done = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_TYPER_LOADS], capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.startswith("interrupted\nexit 130\n"), done.stderr
    assert done.stderr.count("reaped") == 2 and "left running" not in done.stderr


@pytest.mark.slow
def test_a_usage_problem_found_early_is_left_to_typer_which_runs_the_line(capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "ez", "--shoes", "40000", "--seed", "1", "--json"]) == 0
    expected = capsys.readouterr().out
    done = subprocess.run([sys.executable, "-c", FAILING.format(error="ConfigurationError")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == expected  # Typer's run took over (os._exit: no reaping lines)


@pytest.mark.slow
def test_a_run_started_with_standard_error_closed_still_prints_its_result(capsys: pytest.CaptureFixture[str]):
    args = ["simulate", "ez", "--shoes", "40000", "--seed", "1", "--workers", "2", "--json"]
    assert main(args) == 0
    expected = capsys.readouterr().out
    done = subprocess.run([sys.executable, "-c", EARLY, *args], stdout=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(2))  # as a shell's 2>&- leaves it: sys.stderr is None
    assert done.returncode == 0 and done.stdout == expected
