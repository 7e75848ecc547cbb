"""Exact results kept on disk between runs, so that a command does not compute them again.

A simulation compares its means with exact values, deals with tables built from the rules core,
and ``baccarat analyze`` prints return tables: each takes tens of milliseconds to compute, which is
a large part of a command that should start in a few hundred.  They are deterministic, so they are
kept in files keyed by their inputs *and by a digest of the package's source code*: a change to any
rule, pay table or algorithm gives every entry a new key, and nothing stale is ever read.  This is
what numba's ``cache=True`` does for compiled code.

The folder is ``$BACCARAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/baccarat``, else
``~/.cache/baccarat``; ``BACCARAT_CACHE_DIR=off`` turns the cache off.  Reading never fails (a
missing, unreadable or damaged entry is a miss) and writing is best effort (a read-only folder
only costs the computation).  Entries are written to a temporary file and renamed into place, so
processes sharing the folder never see half an entry.  Only JSON, text and ``.npz`` arrays without
pickles are stored.

This module imports nothing heavier than the standard library; numpy is imported only to read or
write arrays.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from functools import cache
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    import numpy.typing as npt

# Paths here are strings (os.path), not pathlib: importing pathlib and tempfile is a measurable part
# of a computed ``baccarat analyze``, and nothing else it runs needs them.
T = TypeVar("T")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # src/baccarat
#: Parts of the package that cannot change an exact result (they are edited often).
_NOT_HASHED = frozenset({"server", "cli"})


def _folder() -> str | None:
    chosen = os.environ.get("BACCARAT_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "0", "off", "none") else chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "baccarat")


def folder() -> Path | None:
    """The cache folder, or ``None`` when the cache is off."""
    from pathlib import Path

    chosen = _folder()
    return None if chosen is None else Path(chosen)


def _sources(root: str) -> list[str]:
    found = []
    for entry in os.scandir(root):
        if entry.is_dir() and entry.name not in _NOT_HASHED and entry.name != "__pycache__":
            found.extend(_sources(entry.path))
        elif entry.name.endswith(".py"):
            found.append(entry.path)
    return found


def version_file(package: str, name: str) -> bytes:
    """A dependency's version file, read without importing the dependency (numpy alone takes 0.1 s)."""
    spec = find_spec(package)
    if spec is None or spec.origin is None:
        return b"absent"
    try:
        with open(os.path.join(os.path.dirname(spec.origin), name), "rb") as stored:
            return stored.read()
    except OSError:
        return b"unknown"


@cache
def code_digest() -> str:
    """A digest of every source file of the package (but the server and the command line) and of the
    versions of Python, numpy and numba."""
    digest = hashlib.sha256(sys.version.encode())
    for package, name in (("numpy", "version.py"), ("numba", "_version.py")):
        digest.update(version_file(package, name))
    for path in sorted(_sources(_PACKAGE)):
        digest.update(os.path.relpath(path, _PACKAGE).encode() + b"\0")
        with open(path, "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()


def _entry(kind: str, key: Mapping[str, Any], suffix: str, *, whole_package: bool = True) -> str | None:
    base = _folder()
    if base is None:
        return None
    text = json.dumps({"key": key, "code": code_digest() if whole_package else None}, sort_keys=True, default=repr)
    return os.path.join(base, kind, hashlib.sha256(text.encode()).hexdigest()[:40] + suffix)


def entry_path(kind: str, key: Mapping[str, Any], suffix: str, *, whole_package: bool = True) -> Path | None:
    """Where the entry of ``kind`` for ``key`` lives (``None`` when the cache is off).

    The key includes :func:`code_digest` unless ``whole_package`` is false: then ``key`` must
    name everything the entry depends on (the compiled kernels depend on one file only).
    """
    from pathlib import Path

    path = _entry(kind, key, suffix, whole_package=whole_package)
    return None if path is None else Path(path)


def _read(path: str) -> bytes:
    with open(path, "rb") as stored:
        return stored.read()


def _write(path: str, write: Callable[[Any], None]) -> None:
    """Write the entry ``path`` through a temporary file renamed into place (best effort)."""
    try:
        folder_name, name = os.path.split(path)
        os.makedirs(folder_name, exist_ok=True)
        # A name no other writer takes (mkstemp's way, without importing tempfile): O_EXCL refuses
        # an existing file, which is then only a missed write.
        temporary = os.path.join(folder_name, f".tmp-{os.getpid()}-{os.urandom(6).hex()}-{name}")
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(handle, "wb") as out:
                write(out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # best effort: a read-only or full disk only costs the computation next time


def text(kind: str, key: Mapping[str, Any], compute: Callable[[], str]) -> str:
    """The text for ``key``, from the cache or computed (and kept)."""
    path = _entry(kind, key, ".txt")
    if path is not None:
        try:
            return _read(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    value = compute()
    if path is not None:
        _write(path, lambda out: out.write(value.encode("utf-8")))
    return value


def json_value(kind: str, key: Mapping[str, Any], compute: Callable[[], T]) -> T:
    """A JSON-serialisable value for ``key``, from the cache or computed (and kept).

    The value read back is what JSON gives: lists for tuples, floats exactly as written.
    """
    path = _entry(kind, key, ".json")
    if path is not None:
        try:
            loaded: T = json.loads(_read(path))
            return loaded
        except (OSError, ValueError):
            pass
    value = compute()
    if path is not None:
        _write(path, lambda out: out.write(json.dumps(value).encode("utf-8")))
    return value


def arrays(kind: str, key: Mapping[str, Any],
           compute: Callable[[], dict[str, npt.NDArray[Any]]]) -> dict[str, npt.NDArray[Any]]:
    """Named numpy arrays for ``key``, from the cache or computed (and kept)."""
    import numpy as np

    path = _entry(kind, key, ".npz")
    if path is not None:
        try:
            with np.load(path, allow_pickle=False) as stored:
                return {name: stored[name] for name in stored.files}
        except (OSError, ValueError, KeyError):
            pass
    value = compute()
    if path is not None:
        named: dict[str, Any] = dict(value)
        _write(path, lambda out: np.savez(out, **named))
    return value
