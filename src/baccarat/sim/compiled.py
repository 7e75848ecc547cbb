"""The simulation kernels compiled ahead of time, so that a run starts without importing numba.

Why: importing numba, and the first call of a kernel even when loaded from numba's cache (numba
fills its typing and lowering registries first), take the better part of a second: serial time
before the first shoe, as long as dealing a few hundred thousand shoes, which also kept two workers
from being twice as fast as one.

How: the chunk kernels of :mod:`baccarat.sim.kernels` (:data:`EXPORTS`, the functions unchanged)
are compiled once by numba's ahead-of-time compiler (``numba.pycc``) into an extension module,
kept in the cache folder of :mod:`baccarat.analysis.cache` under a key made of the sources, the
versions of Python, numpy and numba, and the processor (the code is compiled for it).  Loading it
takes about a millisecond and imports only numpy.  The first run builds it (10 to 20 s, once;
numba's compiler needs a C compiler and setuptools for it).

Where it cannot be built or loaded, the very same functions run through numba's JIT (with
``cache=True``): the same shoes to the bit, at the old start-up cost.  ``BACCARAT_KERNELS=jit``
chooses the JIT (the tests compare the two).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from baccarat.analysis import cache as disk

_MODULE = "_baccarat_kernels"  # the extension's name: its initialisation function is PyInit__baccarat_kernels
_SOURCES = (Path(__file__).with_name("kernels.py"), Path(__file__))  # the functions, and EXPORTS below


#: An argument of a kernel compiled ahead of time: a scalar type, or a C-contiguous array as (dtype, dimensions).
Argument = str | tuple[str, int]
_INT, _FLOAT, _BOOL = "int64", "float64", "boolean"
_CHUNK_RESULT: tuple[Argument, ...] = (("int64", 1), ("float64", 2))  # (histogram, sums)

#: The kernels compiled ahead of time (functions of :mod:`baccarat.sim.kernels`): result and argument types.
#: The compiled code trusts its arguments (an array of the wrong dtype is read as the wrong memory),
#: so every array is checked before each call (:func:`_checked`).
EXPORTS: dict[str, tuple[tuple[Argument, ...], tuple[Argument, ...]]] = {
    "punto_banco_chunk": (_CHUNK_RESULT, (
        _INT, ("uint64", 1), ("int32", 1), ("int64", 1), _INT, ("int64", 1), ("int64", 2), ("int64", 1),
        ("float64", 2))),
    "punto_banco_cards_chunk": (_CHUNK_RESULT, (
        _INT, ("uint64", 1), ("int32", 1), ("int32", 1), ("int32", 1), ("int32", 1), ("int64", 1), ("int64", 1),
        _INT, ("int64", 1), ("int64", 2), ("int64", 1), ("float64", 2))),
    "punto_banco_deals_chunk": ((("int64", 1), ("int64", 2), ("int64", 1), ("int64", 1)), (
        _INT, ("uint64", 1), ("int32", 1), ("int32", 1), ("int64", 1), _INT, ("int64", 1), ("int64", 2),
        ("int64", 1))),
    "lucky_draw_chunk": (_CHUNK_RESULT, (
        _INT, ("uint64", 1), ("int32", 1), ("int32", 1), ("int64", 1), _INT, ("int64", 1), ("int64", 3),
        ("float64", 1), ("int8", 3), ("float64", 1))),
    "count_chunk": ((("float64", 1),), (
        _INT, ("uint64", 1), ("int32", 1), ("int32", 1), ("int64", 1), _INT, ("int64", 1), ("int64", 2),
        ("int64", 1), ("float64", 1), ("int64", 1), _FLOAT, _BOOL, _INT, _BOOL, ("int64", 1), ("int64", 1),
        ("int64", 1), ("float64", 1))),
}


def signature(name: str) -> str:
    """The numba signature of export ``name``, e.g. ``float64[::1](int64, uint64[::1])``."""

    def spelled(argument: Argument) -> str:
        if isinstance(argument, str):
            return argument
        dtype, dimensions = argument
        return f"{dtype}[{', '.join([':'] * (dimensions - 1) + ['::1'])}]"

    result, arguments = EXPORTS[name]
    returned = spelled(result[0]) if len(result) == 1 else f"Tuple(({', '.join(map(spelled, result))}))"
    return f"{returned}({', '.join(map(spelled, arguments))})"


class Kernels(NamedTuple):
    """The chunk kernels, compiled ahead of time or through numba's JIT."""

    punto_banco_chunk: Callable[..., Any]
    punto_banco_cards_chunk: Callable[..., Any]
    punto_banco_deals_chunk: Callable[..., Any]
    lucky_draw_chunk: Callable[..., Any]
    count_chunk: Callable[..., Any]
    ahead_of_time: bool  #: False: numba's JIT (no C compiler, or ``BACCARAT_KERNELS=jit``)


def _processor() -> str:
    """What the compiled code was tuned for: the processor's model and instruction-set flags."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            lines = [line for line in info.read(1 << 16).splitlines() if line.startswith(("model name", "flags"))]
        return platform.machine() + "|" + "|".join(lines[:2])
    except OSError:
        return f"{platform.machine()}|{platform.processor()}"


def module_path() -> Path | None:
    """Where the compiled kernels of this source, these versions and this processor live (or would)."""
    key = {
        "sources": [hashlib.sha256(source.read_bytes()).hexdigest() for source in _SOURCES],
        "python": sys.version,
        "numpy": disk.version_file("numpy", "version.py").decode(errors="replace"),
        "numba": disk.version_file("numba", "_version.py").decode(errors="replace"),
        "processor": _processor(),
    }
    return disk.entry_path("kernels", key, importlib.machinery.EXTENSION_SUFFIXES[0], whole_package=False)


def _load(path: Path) -> ModuleType | None:
    if not path.exists():
        return None
    try:
        loader = importlib.machinery.ExtensionFileLoader(_MODULE, str(path))
        spec = importlib.util.spec_from_loader(_MODULE, loader)
        if spec is None:  # pragma: no cover - never for an extension loader
            return None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module
    except (ImportError, OSError):
        return None


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Anything the C compiler prints goes to stderr: stdout may be carrying ``--json``."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """One build at a time per cache folder (processes started together would all build)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: builds may overlap, each renamed into place whole
        yield
        return
    with open(path.with_suffix(".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(path: Path) -> bool:
    """Compile :data:`EXPORTS` into the extension module at ``path``; False on failure."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _lock(path):
            if path.exists():  # built by another process while this one waited
                return True
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numba.pycc is "pending deprecation"; it is what compiles ahead
                from numba.pycc.cc import CC

                from baccarat.sim import kernels

                with tempfile.TemporaryDirectory(dir=path.parent) as folder, _stdout_to_stderr():
                    compiler = CC(_MODULE)  # type: ignore[no-untyped-call]
                    compiler.output_dir = folder
                    compiler.target_cpu = "host"
                    for name in EXPORTS:
                        export = compiler.export(name, signature(name))  # type: ignore[no-untyped-call]
                        export(getattr(kernels, name).py_func)
                    compiler.compile()
                    os.replace(Path(folder) / compiler.output_file, path)
        return True
    except Exception:  # no C compiler, no setuptools, a read-only folder...: the JIT runs instead
        return False


def _checked(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (compiled ahead of time), refusing an array of another dtype, dimension or layout.

    A few microseconds per chunk: the compiled code would read such an array as the wrong memory.
    """
    import numpy as np

    arrays = [(position, np.dtype(argument[0]), argument[1])
              for position, argument in enumerate(EXPORTS[name][1]) if isinstance(argument, tuple)]

    def call(*args: Any) -> Any:
        for position, dtype, dimensions in arrays:
            value = args[position]
            if not (isinstance(value, np.ndarray) and value.dtype == dtype and value.ndim == dimensions
                    and value.flags.c_contiguous):
                raise TypeError(f"{name}: argument {position} must be a C-contiguous {dimensions}-d {dtype} array")
        return function(*args)

    return call


@cache
def kernels() -> Kernels:
    """The kernels for this process: ahead of time when possible (loaded once, then kept)."""
    if os.environ.get("BACCARAT_KERNELS", "").strip().lower() != "jit":
        path = module_path()
        if path is not None:
            module = _load(path)
            if module is None:
                # Entries are renamed into place whole, so one that is there but does not load is
                # damaged or was built for something else: build it again.
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
                if build(path):
                    module = _load(path)
            if module is not None:
                return Kernels(**{name: _checked(name, getattr(module, name)) for name in EXPORTS}, ahead_of_time=True)
    from baccarat.sim import kernels as jit

    return Kernels(**{name: getattr(jit, name) for name in EXPORTS}, ahead_of_time=False)
