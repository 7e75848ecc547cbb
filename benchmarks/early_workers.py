"""An experiment behind issue 17: two workers forked before numpy is imported, against the command.

Two ``baccarat simulate`` workers cannot be twice one worker while the start-up before their first
chunk (about 0.15 s: Python, numpy, the simulation's modules, the kernels) is serial.  numba's
ahead-of-time modules import numpy, so the kernels cannot be loaded without it; this benchmark asks
what a design without that constraint would give on this machine, before anyone builds one.

It compiles the punto banco chunk (the very functions of ``baccarat.sim.kernels``: the shuffle, the
shoe and the per-shoe sums, in a numba ``cfunc`` taking plain pointers) to an object file with
llvmlite and links it with ``gcc`` into a shared library that needs neither numpy nor numba: the
symbols numba's wrapper calls only when the function fails (it cannot: no allocation, no division
check) are linked to ``abort``.  A stripped ``simulate ez --workers 2 --json`` then forks its two
workers about 0.02 s after the launch, with nothing but ``ctypes`` and the plain-Python seed words
(:mod:`baccarat.sim.seeds`); they take chunks as the command's workers do, while the parent imports
numpy and the simulation's modules, builds the plan and writes the report with the command's own
functions.  Its output is checked to be the command's, byte for byte; then rounds of one worker (the
command), two workers (the command) and two workers forked early (the experiment), interleaved.

    python benchmarks/early_workers.py [--shoes 600000] [--rounds 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from installed import compile_package  # benchmarks/installed.py

from baccarat.sim.outcome_tables import punto_banco_tables, shoe_tables
from baccarat.sim.run import CHUNK_SHOES, Plan

CHILD = r"""
import os, sys, time
start = float(sys.argv[1])
library, tables, game = sys.argv[2:5]
shoes, seed, workers, chunk, size, cut_card, wagers = map(int, sys.argv[5:12])
def mark(name): os.write(2, f"mark {name} {time.time() - start:.4f}\n".encode())
import ctypes, mmap, struct
from baccarat.sim.seeds import state_words
deal = ctypes.CDLL(library).deal_chunk
I, V = ctypes.c_int64, ctypes.c_void_p
deal.restype, deal.argtypes = I, [I, V, V, I, V, I, V, V, V, V, I, V, V, V, V, V]
raw, parts, offset = open(tables, "rb").read(), [], 0
for length in (4 * size, 80, 80, 880, 80, 8 * 10_000 * wagers):  # deck values, burn, tableau, pays by key
    parts.append(ctypes.create_string_buffer(raw[offset:offset + length], length))
    offset += length
deck, burn, player_draws, banker_draws, natural, pays = parts
chunks = -(-shoes // chunk)
word = mmap.mmap(-1, 8)  # the next chunk nobody has taken, as baccarat.sim.run._Counter
lock_read, lock_write = os.pipe()
os.write(lock_write, b"\0")
def take():
    os.read(lock_read, 1)
    index = int.from_bytes(word[:8], "little")
    word[:8] = (index + 1).to_bytes(8, "little")
    os.write(lock_write, b"\0")
    return index
LENGTH = struct.Struct("<Q")
pipes = []
for _ in range(workers):
    receive, send = os.pipe()
    if os.fork() == 0:
        code = 1
        try:
            os.close(receive)
            histogram, sums = (ctypes.c_int64 * 10_000)(), (ctypes.c_double * (3 * wagers + 3))()
            values, net = (ctypes.c_int32 * size)(), (ctypes.c_double * wagers)()
            keys = (ctypes.c_int64 * (size // 4 + 1))()
            while (index := take()) < chunks:
                state = (ctypes.c_uint64 * 4)(*state_words(seed, (index,), 4))
                ctypes.memset(histogram, 0, ctypes.sizeof(histogram))
                ctypes.memset(sums, 0, ctypes.sizeof(sums))
                deal(min(chunk, shoes - index * chunk), state, deck, size, burn, cut_card, player_draws, banker_draws,
                     natural, pays, wagers, histogram, sums, values, keys, net)
                body = index.to_bytes(8, "little") + bytes(histogram) + bytes(sums)
                data = memoryview(LENGTH.pack(len(body)) + body)
                while data:
                    data = data[os.write(send, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(send)
    pipes.append(receive)
mark("forked")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import select
import numpy as np
from baccarat.core.registry import get_game
from baccarat.cli.simulate_text import plain_plan, result_text
from baccarat.sim.run import add_up
plan = plain_plan({"game": game, "shoes": shoes, "seed": seed})
mark("parent-ready")
def read(fd, size):
    parts = []
    while size:
        part = os.read(fd, size)
        if not part:
            raise EOFError
        parts.append(part)
        size -= len(part)
    return b"".join(parts)
results, done = [None] * chunks, 0
while done < chunks:
    if not pipes:
        raise SystemExit("a worker ended before its chunks were dealt")
    for fd in select.select(pipes, [], [])[0]:
        try:
            body = read(fd, LENGTH.unpack(read(fd, LENGTH.size))[0])
        except EOFError:
            pipes.remove(fd)
            continue
        results[int.from_bytes(body[:8], "little")] = (
            np.frombuffer(body[8:80_008], dtype=np.int64), np.frombuffer(body[80_008:]).reshape(wagers + 1, 3).copy())
        done += 1
mark("last-result-in")
sys.stdout.write(result_text(get_game(game), plan, add_up(results), as_json=True))
sys.stdout.flush()
for _ in range(workers):
    os.wait()
os._exit(0)
"""


def build_library(folder: Path) -> Path:
    """The punto banco chunk as a shared library without numpy or numba: ``deal_chunk(...)``."""
    import llvmlite.binding as llvm
    import numba
    from numba import carray, types

    from baccarat.sim import kernels

    pointer, i64, i32, u64, f64 = types.CPointer, types.int64, types.int32, types.uint64, types.float64
    signature = i64(i64, pointer(u64), pointer(i32), i64, pointer(i64), i64, pointer(i64), pointer(i64), pointer(i64),
                    pointer(f64), i64, pointer(i64), pointer(f64), pointer(i32), pointer(i64), pointer(f64))

    @numba.cfunc(signature, error_model="numpy")
    def deal_chunk(shoes, state_p, deck_p, size, burn_p, cut_card, player_p, banker_p, natural_p, pays_p,
                   wagers, histogram_p, sums_p, values_p, keys_p, net_p):  # pragma: no cover - compiled
        state, deck, values = carray(state_p, 4), carray(deck_p, size), carray(values_p, size)
        for i in range(size):
            values[i] = deck[i]
        burn, player_draws, natural = carray(burn_p, 10), carray(player_p, 10), carray(natural_p, 10)
        banker_draws, pays = carray(banker_p, (10, 11)), carray(pays_p, (10_000, wagers))
        histogram, sums = carray(histogram_p, 10_000), carray(sums_p, (wagers + 1, 3))
        keys, net = carray(keys_p, size // 4 + 1), carray(net_p, wagers)
        for _ in range(shoes):  # punto_banco_chunk's loop, on the caller's memory
            kernels.shuffle_in_place(values, state)
            hands = kernels.punto_banco_shoe(values, burn, cut_card, player_draws, banker_draws, natural, pays, keys,
                                             histogram, net)
            kernels._add_shoe(sums, net, hands)
        return 0

    module = llvm.parse_assembly(deal_chunk._library.get_llvm_str())
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), reloc="pic", opt=3)
    (folder / "chunk.o").write_bytes(machine.emit_object(module))
    # numba's own run-time helpers, called only on the error path; Python's C API resolves in the process.
    helpers = sorted(f.name for f in module.functions if f.is_declaration and f.name.startswith(("NRT_", "numba_")))
    (folder / "helpers.c").write_text("#include <stdlib.h>\n" + "".join(f"void {name}(void) {{ abort(); }}\n"
                                                                       for name in helpers))
    library = folder / "chunk.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(library), str(folder / "chunk.o"),
                    str(folder / "helpers.c"), f"-Wl,--defsym=deal_chunk={deal_chunk.native_name}"], check=True)
    return library


def write_tables(plan: Plan, path: Path) -> tuple[int, int]:
    """The kernel's tables as the child reads them; (cards in the shoe, wagers)."""
    shoe, tables = shoe_tables(plan.decks), punto_banco_tables(plan.game)
    assert tables.patterns == 1, "the experiment deals point values only (a game without pair or suit wagers)"
    parts = [shoe.deck_values.astype(np.int32), shoe.burn, tables.player_draws, tables.banker_draws, tables.natural,
             tables.pays_by_key]
    path.write_bytes(b"".join(np.ascontiguousarray(part).tobytes() for part in parts))
    return len(shoe.deck), tables.pays_by_key.shape[1]


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "baccarat.cli.app"]


def timed(command: list[str]) -> tuple[float, str, dict[str, float]]:
    """Wall seconds of ``command``, its output and the marks it wrote to stderr."""
    start = time.time()
    done = subprocess.run([repr(start) if part == "{start}" else part for part in command],
                          capture_output=True, text=True, check=True)
    seconds = time.time() - start
    marks = {line.split()[1]: float(line.split()[2]) for line in done.stderr.splitlines() if line.startswith("mark ")}
    return seconds, done.stdout, marks


def spread(values: list[float], digits: int = 3) -> str:
    """``median [min-max]``."""
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=600_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    compile_package()
    folder = Path(tempfile.mkdtemp(prefix="baccarat-early-"))
    try:
        plan = Plan("ez", args.shoes, args.seed)
        size, wagers = write_tables(plan, folder / "tables.bin")
        library = build_library(folder)
        command = [*_command(), "simulate", "ez", "--shoes", str(args.shoes), "--seed", str(args.seed), "--json"]
        early = [sys.executable, "-c", CHILD, "{start}", str(library), str(folder / "tables.bin"), "ez",
                 *map(str, (args.shoes, args.seed, 2, CHUNK_SHOES, size, plan.cut_card, wagers))]
        expected = timed([*command, "--workers", "2"])[1]
        if timed(early)[1] != expected:
            raise SystemExit("the early workers' output differs from the command's")
        load = os.getloadavg()[0]
        runs: dict[str, list[float]] = {"one": [], "two": [], "early": [], "forked": [], "parent_ready": []}
        for _ in range(args.rounds):
            runs["one"].append(timed([*command, "--workers", "1"])[0])
            runs["two"].append(timed([*command, "--workers", "2"])[0])
            seconds, output, marks = timed(early)
            assert output == expected
            runs["early"].append(seconds)
            runs["forked"].append(marks["forked"])
            runs["parent_ready"].append(marks["parent-ready"])
    finally:
        shutil.rmtree(folder)
    two = [one / two for one, two in zip(runs["one"], runs["two"], strict=True)]
    early_ratio = [one / early for one, early in zip(runs["one"], runs["early"], strict=True)]
    print(f"simulate ez --shoes {args.shoes:,} --json, {args.rounds} interleaved rounds, whole processes, seconds: "
          f"median [min-max] (load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end); "
          "the early workers' output is the command's, byte for byte (checked every round)")
    print(f"  one worker (the command)          {spread(runs['one'])}")
    print(f"  two workers (the command)         {spread(runs['two'])}   one / two {spread(two, 2)}")
    print(f"  two workers forked before numpy   {spread(runs['early'])}   one / two {spread(early_ratio, 2)}"
          f"   (forked at {spread(runs['forked'])} s; the parent ready at {spread(runs['parent_ready'])} s)")
    if args.json:
        args.json.write_text(json.dumps({
            "shoes": args.shoes, "rounds": args.rounds, "load_average": [load, os.getloadavg()[0]],
            "seconds": runs, "one_over_two": two, "one_over_early": early_ratio,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
