"""Workers forked before the simulation's command line was parsed, held until the run claims them.

:mod:`baccarat.cli.early_workers` forks them for a plain ``simulate`` line; :func:`baccarat.sim.run`
takes them (:func:`claim`) when they deal its very plan, and anything else ends them (:func:`release`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The fewest and most local worker processes a run may use.
MIN_WORKERS, MAX_WORKERS = 1, 256

#: (plan, workers, what start_workers returned, the chunk function they run, how to stop them)
_started: tuple[Any, int, Any, Callable[..., Any], Callable[..., None]] | None = None


def hold(plan: Any, workers: int, started_workers: Any, *, chunk: Callable[..., Any],
         stop: Callable[..., None]) -> None:
    """Keep workers started for ``plan`` with ``workers`` processes (running ``chunk``) until a run
    claims them; ``stop(*started_workers)`` ends them."""
    global _started
    _started = (plan, workers, started_workers, chunk, stop)


def started() -> bool:
    """Whether workers started here wait to be claimed."""
    return _started is not None


def claim(plan: Any, workers: int, chunk: Any) -> Any:
    """The started workers (as :func:`baccarat.sim.run.start_workers` returns them) if they deal
    ``chunk`` of ``plan`` with ``workers`` processes; otherwise they are ended and None is returned."""
    global _started
    held, _started = _started, None
    if held is None:
        return None
    theirs, count, workers_started, their_chunk, stop = held
    if theirs == plan and count == workers and chunk is their_chunk:
        return workers_started
    stop(*workers_started)
    return None


def release() -> None:
    """End workers nobody claimed (the command failed before its run, or was another run)."""
    global _started
    held, _started = _started, None
    if held is not None:
        held[4](*held[2])
