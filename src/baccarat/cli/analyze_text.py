"""What ``baccarat analyze`` prints, and a plain ``analyze`` command line answered without Typer.

:func:`report_text` is the command's output (the return tables or their JSON, kept on disk by
:mod:`baccarat.analysis.cache`); :mod:`baccarat.cli.analyze` calls it once Typer has parsed and
checked the command line.

Typer and the command modules are a good part of a computed ``baccarat analyze``, and most of one
whose report is kept, which should answer at once.  So the console script (:mod:`baccarat.cli.console`)
first gives the command line to :func:`early_text`: when it is a plain one (a built-in game and
only ``--decks``, ``--shoe``, ``--paytable``, ``--strategy``, ``--eor`` and ``--json``, each at most
once, whole numbers written in digits), that reads it as Typer would, makes the same checks in the
same order and returns the same :func:`report_text`; for anything else (help, ``--rules``,
``--report``, a repeated or unknown option, a value Typer might read otherwise) and for anything
refused (an unknown game, a bad shoe), it returns ``None`` and Typer reads the command line as
always, so every message and exit code still comes from one place.  ``tests/cli/test_cli_startup.py``
compares the two readings' outputs byte for byte.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypedDict, cast

from baccarat.core.shoe import DEFAULT_DECKS

if TYPE_CHECKING:
    from baccarat.analysis.lucky_draw import StrategyKind
    from baccarat.core.games import Game

#: The Draw decisions ``--strategy`` names (Lucky Draw only).
STRATEGIES: tuple[StrategyKind, ...] = ("composition", "total")
_NUMBERS = {"--decks": "decks", "--paytable": "paytable"}
_WORDS = {"--shoe": "shoe", "--strategy": "strategy"}
_FLAGS = {"--eor": "eor", "--json": "as_json"}
_MAX_DIGITS = 6  #: longer numbers (no deck count or pay table has one) are Typer's to refuse

#: A plain command line's options, read by :func:`read_plain_line`: field -> a whole number, a word or a flag.
PlainLine = dict[str, int | str | bool]


class AnalyzeLine(TypedDict, total=False):
    """A plain ``analyze`` line's game and options (:func:`read_command_line`)."""

    game: str
    decks: int
    paytable: int
    shoe: str
    strategy: StrategyKind
    eor: bool
    as_json: bool


def single_threaded_blas() -> None:
    """Ask numpy's OpenBLAS for no thread pool, unless the user chose a size: call before numpy is imported.

    Neither the analyzer nor the simulator uses BLAS, and starting its threads is a large part of
    numpy's import time, in commands that should start fast.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def report_text(game: Game, *, decks: int | None, shoe: str | None, strategy: StrategyKind, eor: bool,
                as_json: bool) -> str:
    """The return tables of ``game`` (or their JSON) for ``decks`` full decks or the partial ``shoe``.

    A deterministic function of its arguments and of the package's code, so it is kept on disk
    (the cache's key has the digest of the package's source).
    """
    from baccarat.analysis import cache as disk  # the standard library only: a cached report needs no numpy

    key = {"game": game.code, "source": game.source, "paytable": game.paytable, "decks": decks,
           "shoe": None if shoe is None else shoe.replace(" ", ""), "strategy": strategy, "eor": eor,
           "json": as_json}
    return disk.text("analyze", key, lambda: _computed(game, decks, shoe, strategy, eor, as_json))


def _computed(game: Game, decks: int | None, shoe: str | None, strategy: StrategyKind, eor: bool,
              as_json: bool) -> str:
    """Analyse and format (the work a kept report saves)."""
    single_threaded_blas()  # before numpy is imported
    from baccarat.analysis.analyze import analyze
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.results import analysis_json, format_analysis

    composition = Composition.parse(shoe) if shoe is not None else Composition.full(
        DEFAULT_DECKS if decks is None else decks)
    result = analyze(game, composition, strategy=strategy, eor=eor)
    if as_json:
        import json

        return json.dumps(analysis_json(result), indent=2) + "\n"
    return format_analysis(result)


def read_plain_line(args: list[str], command: str, *, numbers: dict[str, str], flags: dict[str, str],
                    max_digits: int, words: dict[str, str] | None = None,
                    repeated_flags: bool = False) -> PlainLine | None:
    """The game and options of a plain ``command`` line, or None (anything else is Typer's to read).

    Options map to the fields they set: ``numbers`` take whole numbers in ASCII digits (at most
    ``max_digits``), ``words`` any value not starting with ``-``, ``flags`` none (given more than once
    only if ``repeated_flags``); each value option at most once, as ``--name value`` or
    ``--name=value``, and one game.  The console script's readers of ``analyze`` and ``simulate``.
    """
    if not args or args[0] != command:
        return None
    texts = words or {}
    spec: PlainLine = {}
    given = iter(args[1:])
    for word in given:
        name, equals, value = word.partition("=")
        field = numbers.get(name) or texts.get(name)
        if field is not None and field not in spec:
            if not equals:
                value = next(given, "-")
            if value.startswith("-") or (name in numbers and not (
                    value.isascii() and value.isdigit() and len(value) <= max_digits)):
                return None  # a value Typer may read otherwise (or Python cannot): its message, not ours
            spec[field] = int(value) if name in numbers else value
        elif word in flags and (repeated_flags or flags[word] not in spec):
            spec[flags[word]] = True
        elif not word.startswith("-") and "game" not in spec:
            spec["game"] = word
        else:
            return None  # another option, a repeated one, help, a second argument: Typer's
    return spec


def read_command_line(args: list[str]) -> AnalyzeLine | None:
    """The options of a plain ``analyze`` command line, or None (anything else is Typer's to read).

    >>> read_command_line(["analyze", "ez", "--decks=6", "--json"])
    {'game': 'ez', 'decks': 6, 'as_json': True}
    >>> read_command_line(["analyze", "ez", "--rules", "pairs.toml"]) is None
    True
    """
    spec = read_plain_line(args, "analyze", numbers=_NUMBERS, words=_WORDS, flags=_FLAGS, max_digits=_MAX_DIGITS)
    if spec is None or "game" not in spec or spec.get("strategy", STRATEGIES[0]) not in STRATEGIES:
        return None
    return cast(AnalyzeLine, spec)  # the fields _NUMBERS, _WORDS and _FLAGS name, of their kinds


def early_text(args: list[str]) -> str | None:
    """What ``baccarat ARGS`` prints, when ``args`` is a plain ``analyze`` line that succeeds; else None.

    The checks are :mod:`baccarat.cli.analyze`'s, in its order; anything refused is left to it, so
    that the refusal is worded and coded in one place.
    """
    spec = read_command_line(args)
    if spec is None:
        return None
    from baccarat.core.registry import get_game

    decks, shoe = spec.get("decks"), spec.get("shoe")
    strategy: StrategyKind = spec.get("strategy", STRATEGIES[0])
    try:
        if shoe is not None and decks is not None:
            return None
        game = get_game(spec["game"], paytable=spec.get("paytable"))
        if strategy != STRATEGIES[0] and game.kind != "lucky_draw":
            return None
        return report_text(game, decks=DEFAULT_DECKS if shoe is None and decks is None else decks, shoe=shoe,
                           strategy=strategy, eor=spec.get("eor", False), as_json=spec.get("as_json", False))
    except Exception:  # whatever is wrong, the command line will find it and say so
        return None
