"""Running a simulation: fixed chunks, one seed stream per chunk, any number of workers.

A run of ``shoes`` shoes is cut into chunks of :data:`CHUNK_SHOES` shoes;
chunk ``i`` draws its random numbers from ``SeedSequence(seed, spawn_key=(i,))``.
The chunks' results are added up in chunk order, so the result depends on the
seed and the shoes only, never on how many workers ran the chunks or where:
in this process, in local worker processes (``workers``), or on a Dask cluster
(``scheduler``).  Each chunk returns a fixed-size summary, so memory stays flat.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import signal
import struct
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from baccarat.core.errors import ConfigurationError, UnavailableError
from baccarat.core.registry import get_game
from baccarat.core.shoe import check_cut_card, check_decks
from baccarat.sim import early
from baccarat.sim.compiled import kernels
from baccarat.sim.early import MAX_WORKERS, MIN_WORKERS
from baccarat.sim.outcome_tables import (
    PuntoBancoTables,
    ShoeTables,
    card_bins,
    card_kinds,
    lucky_draw_tables,
    punto_banco_tables,
    shoe_tables,
)
from baccarat.sim.seeds import state_words

#: Shoes per chunk by default: a chunk is a fraction of a second of work, so the per-task
#: overhead of a process pool or a Dask cluster stays small and the progress bar still moves.
CHUNK_SHOES = 10_000
#: The most shoes one run may deal (a guard against typos; about 10^11 hands).
MAX_SHOES = 10**9
#: How long a run waits for its Dask scheduler to answer before saying it cannot reach it.
SCHEDULER_TIMEOUT = "30s"

ChunkResult = tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]


class Chunked(Protocol):
    """A picklable plan cut into chunks."""

    @property
    def chunks(self) -> int: ...


P = TypeVar("P", bound=Chunked)


class ChunkedRun:
    """What simulations and counting studies share: the shoes, the seed, the shoe and the chunks.

    Mixed into frozen dataclasses with the fields ``shoes``, ``seed``, ``decks``, ``cut_card`` and
    ``chunk_size``; :meth:`check_run` is called from their ``__post_init__``.
    """

    shoes: int
    seed: int
    decks: int
    cut_card: int
    chunk_size: int

    def check_run(self) -> None:
        if not isinstance(self.shoes, int) or isinstance(self.shoes, bool) or not 1 <= self.shoes <= MAX_SHOES:
            raise ConfigurationError(f"shoes must be a whole number from 1 to {MAX_SHOES:,}, got {self.shoes!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ConfigurationError(f"seed must be a non-negative integer, got {self.seed!r}")
        check_decks(self.decks)
        check_cut_card(self.cut_card, 52 * self.decks)
        if not isinstance(self.chunk_size, int) or isinstance(self.chunk_size, bool) or self.chunk_size < 1:
            raise ConfigurationError(f"chunk size must be a positive whole number, got {self.chunk_size!r}")

    @property
    def chunks(self) -> int:
        return math.ceil(self.shoes / self.chunk_size)

    def chunk_shoes(self, index: int) -> int:
        return min(self.chunk_size, self.shoes - index * self.chunk_size)
R = TypeVar("R")


@dataclass(frozen=True)
class Plan(ChunkedRun):
    """What to simulate; small and picklable, so worker processes and Dask workers can take it."""

    game: str
    shoes: int
    seed: int
    decks: int = 8
    cut_card: int = 14
    paytable: int | None = None
    draws: bytes | None = field(default=None, repr=False)  #: Lucky Draw strategy, 1,000 booleans [s1, up, s2]
    chunk_size: int = CHUNK_SHOES  #: shoes per chunk; part of what the seed reproduces

    @property
    def kind(self) -> str:
        """The game's kind of deal, from the registry (which also refuses an unknown game)."""
        return get_game(self.game, paytable=self.paytable).kind

    def __post_init__(self) -> None:
        self.check_run()
        if self.kind == "lucky_draw" and (self.draws is None or len(self.draws) != 1000):
            raise ConfigurationError("a Lucky Draw plan needs the seat's strategy (1,000 cells)")


def chunk_state(seed: int, index: int) -> npt.NDArray[np.uint64]:
    """The xoshiro256** state of chunk ``index``: from the chunk's own ``SeedSequence`` child.

    numpy's ``SeedSequence(seed, spawn_key=(index,)).generate_state(4, numpy.uint64)``, computed by
    :func:`baccarat.sim.seeds.state_words` without importing ``numpy.random`` (15 to 25 ms).
    """
    state = np.array(state_words(seed, (index,), 4), dtype=np.uint64)
    if not state.any():  # pragma: no cover - probability 2**-256
        state[0] = 1
    return state


def run_chunk(plan: Plan, index: int) -> ChunkResult:
    """Deal chunk ``index`` of ``plan`` (a top-level function, so processes and Dask can call it)."""
    state = chunk_state(plan.seed, index)
    shoe = shoe_tables(plan.decks)
    shoes = plan.chunk_shoes(index)
    if plan.kind == "lucky_draw":
        t = lucky_draw_tables(plan.paytable or 1)
        draws = np.frombuffer(plan.draws or b"", dtype=bool).reshape(10, 10, 10).astype(np.int64)
        result: ChunkResult = kernels().lucky_draw_chunk(
            shoes, state, shoe.deck, shoe.value_of, shoe.burn, plan.cut_card, t.dealer_draws, draws,
            t.enter_pay, t.block_event, t.block_pay)
        return result
    p = punto_banco_tables(plan.game)
    if p.cards:  # a wager reads the cards themselves: its events come from each coup's cards
        return _cards_chunk(plan, p, shoes, state, shoe)
    if p.patterns > 1:  # a wager reads ranks or suits: deal real cards
        rank_of, suit_of = card_kinds()
        assert p.pattern_index is not None
        result = kernels().punto_banco_cards_chunk(
            shoes, state, shoe.deck, shoe.value_of, rank_of, suit_of, p.pattern_index, shoe.burn, plan.cut_card,
            p.player_draws, p.banker_draws, p.natural, p.pays_by_key)
        return result
    result = kernels().punto_banco_chunk(shoes, state, shoe.deck_values, shoe.burn, plan.cut_card,
                                         p.player_draws, p.banker_draws, p.natural, p.pays_by_key)
    return result


def _cards_chunk(plan: Plan, p: PuntoBancoTables, shoes: int, state: npt.NDArray[np.uint64],
                 shoe: ShoeTables) -> ChunkResult:
    """A chunk of a game with a wager on the cards themselves: the kernel deals and keeps every coup's cards, the
    analysis's interpreter of the facts gives each coup's bin, and the shoes' sums are those of
    ``kernels._add_shoe`` (each shoe's net added coup by coup, in deal order)."""
    keys, dealt, shoe_of, hands = kernels().punto_banco_deals_chunk(
        shoes, state, shoe.deck, shoe.value_of, shoe.burn, plan.cut_card, p.player_draws, p.banker_draws, p.natural)
    bins = card_bins(get_game(plan.game), keys, dealt)
    histogram = np.bincount(bins, minlength=p.pays.shape[1]).astype(np.int64)
    wagers = p.pays.shape[0]
    net = np.zeros((shoes, wagers))
    np.add.at(net, shoe_of, p.pays_by_key[bins])
    counts = hands.astype(np.float64)
    sums = np.zeros((wagers + 1, 3))
    sums[:wagers, 0] = net.sum(axis=0)
    sums[:wagers, 1] = (net * net).sum(axis=0)
    sums[:wagers, 2] = (net * counts[:, None]).sum(axis=0)
    sums[wagers] = counts.sum(), (counts * counts).sum(), shoes
    return histogram, sums


class _Counter:
    """The next chunk nobody has taken, shared by the forked processes of a run.

    A word in shared memory, moved by whoever holds a one-byte token read from a pipe: the
    standard library's ``os``, ``mmap`` and a pipe, where ``multiprocessing`` (its ``Value``, lock,
    pipes and processes) is slow to import before the first worker can start.
    """

    def __init__(self) -> None:
        import mmap

        self.word = mmap.mmap(-1, 8)  # anonymous and shared: forked processes see the same page
        self.lock_read, self.lock_write = os.pipe()
        os.write(self.lock_write, b"\0")

    def take(self) -> int:
        os.read(self.lock_read, 1)
        try:
            index = int.from_bytes(self.word[:8], "little")
            self.word[:8] = (index + 1).to_bytes(8, "little")
        finally:
            os.write(self.lock_write, b"\0")
        return index

    def close(self) -> None:
        os.close(self.lock_read)
        os.close(self.lock_write)
        self.word.close()


_LENGTH = struct.Struct("<Q")


def _send(fd: int, message: object) -> None:
    """Write one pickled message, its length first (a pipe may take a large one in several writes)."""
    data = memoryview(_LENGTH.pack(len(body := pickle.dumps(message, pickle.HIGHEST_PROTOCOL))) + body)
    while data:
        data = data[os.write(fd, data):]


class _Receiver:
    """The read end of one worker's pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def _read(self, size: int) -> bytes:
        parts, left = [], size
        while left:
            part = os.read(self.fd, left)
            if not part:
                raise EOFError
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def recv(self) -> Any:
        (size,) = _LENGTH.unpack(self._read(_LENGTH.size))
        return pickle.loads(self._read(size))

    def close(self) -> None:
        os.close(self.fd)


def _deal_taken_chunks(plan: P, chunk: Callable[[P, int], R], counter: _Counter,
                       sender: int) -> None:  # pragma: no cover - runs in the forked worker
    """A worker process: deal chunks until none is left, sending each result as it is done."""
    try:
        while (index := counter.take()) < plan.chunks:
            _send(sender, (index, chunk(plan, index)))
    except BaseException as error:  # reported by the parent, which raises it
        _send(sender, (-1, f"{type(error).__name__}: {error}"))
    finally:
        os.close(sender)


def _received(ready: list[Any], receivers: list[_Receiver]) -> Generator[tuple[int, Any], None, int]:
    """The results waiting on the ``ready`` pipes, and how many (a closed pipe is dropped)."""
    count = 0
    for receiver in ready:
        try:
            index, result = receiver.recv()
        except EOFError:
            receivers.remove(receiver)
            receiver.close()
            continue
        if index < 0:
            raise RuntimeError(f"a simulation worker process failed: {result}")
        count += 1
        yield index, result
    return count


def _fork(plan: P, chunk: Callable[[P, int], R], counter: _Counter, receivers: list[_Receiver]) -> int:
    """Start one worker process; its id (its results come on the receiver added to ``receivers``)."""
    receive, send = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the worker: it never returns
        code = 1
        try:
            os.close(receive)
            for other in receivers:
                other.close()
            _deal_taken_chunks(plan, chunk, counter, send)
            code = 0
        finally:
            os._exit(code)
    os.close(send)
    receivers.append(_Receiver(receive))
    return pid


def start_workers(plan: P, workers: int, chunk: Callable[[P, int], R]) -> tuple[list[int], list[_Receiver], _Counter]:
    """Load the kernels and tables here (a one-shoe chunk, result dropped), so that the forked
    workers inherit them and deal at once, then fork ``workers`` of them (fewer for fewer chunks)."""
    chunk(replace(plan, shoes=1), 0)  # type: ignore[type-var]
    counter = _Counter()
    pids: list[int] = []
    receivers: list[_Receiver] = []
    try:
        for _ in range(min(workers, plan.chunks)):
            pids.append(_fork(plan, chunk, counter, receivers))
    except BaseException:
        stop_workers(pids, receivers, counter)
        raise
    return pids, receivers, counter


def stop_workers(pids: list[int], receivers: list[_Receiver], counter: _Counter, *, kill: bool = True) -> None:
    """End the workers (``kill``: without waiting for their chunks) and free what they used."""
    for pid in pids if kill else ():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for receiver in receivers:
        receiver.close()
    for pid in pids:
        os.waitpid(pid, 0)
    counter.close()


def _collect(plan: P, pids: list[int], receivers: list[_Receiver], counter: _Counter) -> Iterator[tuple[int, Any]]:
    """The workers' results as they come, until every chunk is in; then the workers are ended."""
    import select

    done = 0
    try:
        while done < plan.chunks:
            if not receivers:
                raise RuntimeError("a simulation worker process ended before its chunks were dealt")
            ready, _, _ = select.select(receivers, [], [])
            done += yield from _received(ready, receivers)
    finally:
        stop_workers(pids, receivers, counter, kill=done < plan.chunks)


def _local(plan: P, workers: int, chunk: Callable[[P, int], R]) -> Iterator[tuple[int, R]]:
    """Deal every chunk in ``workers`` forked processes, each taking the next chunk nobody has taken.

    The kernels and tables are loaded first, so the forked workers inherit them (:func:`start_workers`).
    Taking chunks one at a time evens out the work when other programs slow one worker down.
    Each worker sends a chunk's fixed-size summary as soon as it is done; this process only waits
    for them (it stays free to read, so a worker never waits on a full pipe), and :func:`execute`
    adds them up in chunk order.  Workers the console script started before the command line was
    read (:mod:`baccarat.cli.early_workers`, held by :mod:`baccarat.sim.early`) are taken when they deal this very plan.
    """
    claimed = early.claim(plan, workers, chunk) if early.started() else None
    if claimed is not None:
        yield from _collect(plan, *claimed)
        return
    if workers == 1 or plan.chunks == 1:
        for index in range(plan.chunks):
            yield index, chunk(plan, index)
        return
    yield from _collect(plan, *start_workers(plan, workers, chunk))


def _dask(plan: P, scheduler: str, chunk: Callable[[P, int], R]) -> Iterator[tuple[int, R]]:
    """Deal every chunk on the Dask cluster whose scheduler is at ``scheduler``; a malformed address is
    a :class:`ConfigurationError`, a scheduler that does not answer (or goes away) an :class:`UnavailableError`."""
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError:  # an extra: the table and simulation on one machine do without it
        raise ConfigurationError("simulating on a Dask cluster needs Dask, which is not installed: "
                                 "pip install 'baccarat[cluster]'") from None

    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)  # type: ignore[no-untyped-call]
    except ValueError as error:  # no port, an unknown protocol...: distributed's own words say which
        raise ConfigurationError(f"{scheduler!r} is not a Dask scheduler's address ({error}); "
                                 "give one such as tcp://host:8786") from None
    except OSError as error:  # refused, or no answer in time
        raise UnavailableError(f"cannot reach the Dask scheduler at {scheduler} ({error}); "
                               "check that it runs and listens there") from None
    with client:
        try:
            futures = client.map(chunk, [plan] * plan.chunks, range(plan.chunks), pure=False)
            index_of = {future.key: index for index, future in enumerate(futures)}
            for future in dask_completed(futures):  # type: ignore[no-untyped-call]
                yield index_of[future.key], future.result()
        except OSError as error:  # the connection to the scheduler closed during the run
            raise UnavailableError(f"lost the Dask scheduler at {scheduler} during the run ({error}); "
                                   "run again once it is back") from None


def execute(plan: P, chunk: Callable[[P, int], R], *, workers: int = 1, scheduler: str | None = None,
            progress: Callable[[int], None] | None = None) -> list[R]:
    """Run ``chunk(plan, i)`` for every chunk; the results in chunk order.

    ``progress(n)`` is called as chunks finish.  ``scheduler`` is the address of
    an existing Dask scheduler (``tcp://host:8786``); otherwise ``workers``
    local processes (1: this process).
    """
    if not isinstance(workers, int) or isinstance(workers, bool) or not MIN_WORKERS <= workers <= MAX_WORKERS:
        raise ConfigurationError(f"workers must be a whole number from {MIN_WORKERS} to {MAX_WORKERS}, got {workers!r}")
    source = _dask(plan, scheduler, chunk) if scheduler else _local(plan, workers, chunk)
    slots: list[R | None] = [None] * plan.chunks
    for index, result in source:
        slots[index] = result
        if progress is not None:
            progress(1)
    return [slot for slot in slots if slot is not None]


def add_up(results: list[ChunkResult]) -> ChunkResult:
    """Histograms and sums of chunk results, added in chunk order (so floats do not depend on workers)."""
    histogram = np.sum([h for h, _ in results], axis=0)
    sums = np.zeros_like(results[0][1])
    for _, s in results:
        sums += s
    return histogram, sums


def run(plan: Plan, *, workers: int = 1, scheduler: str | None = None,
        progress: Callable[[int], None] | None = None) -> ChunkResult:
    """Deal every shoe of ``plan``; the chunks' histograms and sums added up."""
    return add_up(execute(plan, run_chunk, workers=workers, scheduler=scheduler, progress=progress))
