"""What a lab's report must say about the software that made it: version, package hash, platform, command.

The package hash is SHA-256 over every file of the installed ``baccarat`` package (compiled caches left
out), each as its path relative to the package, a NUL, its SHA-256, a newline, in path order: two
installs of the same code give the same hash whatever their location, and any edited file changes it.
``baccarat certify`` prints it; ``python -m baccarat.reports.provenance`` prints it alone.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import baccarat

_SKIPPED = {"__pycache__"}


def package_hash(root: Path | None = None) -> str:
    """SHA-256 of the installed package's files (see the module's docstring), as hex."""
    base = Path(baccarat.__file__).parent if root is None else root
    outer = hashlib.sha256()
    for path in sorted(p for p in base.rglob("*") if p.is_file() and not _SKIPPED & set(p.relative_to(base).parts)
                       and p.suffix not in {".pyc", ".nbi", ".nbc"}):
        outer.update(path.relative_to(base).as_posix().encode() + b"\0"
                     + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    return outer.hexdigest()


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:  # pragma: no cover - every one is a dependency
        return "not installed"


@dataclass(frozen=True)
class Provenance:
    """The software, machine and command behind a report."""

    software: str
    package_sha256: str
    python: str
    platform: str
    libraries: dict[str, str]
    command: str
    started: str

    def to_json(self) -> dict[str, object]:
        """A plain JSON object."""
        return asdict(self)


def provenance(command: list[str] | None = None) -> Provenance:
    """The provenance of a run started now by ``command`` (default: this process's arguments)."""
    argv = sys.argv if command is None else command
    return Provenance(
        software=f"baccarat {baccarat.__version__}", package_sha256=package_hash(),
        python=f"{platform.python_implementation()} {platform.python_version()}",
        platform=platform.platform(),
        libraries={name: _version(name) for name in ("numpy", "scipy", "numba")},
        command=" ".join(["baccarat", *argv[1:]] if argv and argv[0].endswith("baccarat") else argv),
        started=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))


if __name__ == "__main__":  # pragma: no cover - a one-line tool
    print(package_hash())
