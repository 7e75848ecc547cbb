"""The real server as a subprocess, for the tests that need one (the ``serve`` and ``server_url``
fixtures of ``tests/conftest.py``, ``browser_kit.Server``): ``baccarat serve`` (or any command that
prints the same ready line first), read up to its ready line, its output drained so that it never
blocks on a full pipe, and stopped cleanly."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import IO

#: the ``baccarat`` console script of this interpreter's environment
EXE = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
#: ``baccarat serve``'s first line: "baccarat server ready at http://127.0.0.1:PORT (database: ...)"
READY = re.compile(r"ready at (http://([0-9.]+):(\d+))")


class Served:
    """A server process started by :func:`start`: ``url`` (``http://HOST:PORT``), ``host``, ``port``,
    ``process``; its ready line is ``ready``, what it wrote after it in :meth:`stdout` and :meth:`stderr`."""

    ready = ""  #: the ready line, as printed

    def __init__(self, process: subprocess.Popen[str], url: str, host: str, port: int,
                 out: list[str], err: list[str] | Path, drains: list[threading.Thread]):
        self.process, self.url, self.host, self.port = process, url, host, port
        self._out, self._err, self._drains = out, err, drains

    @property
    def pid(self) -> int:
        return self.process.pid

    def stdout(self) -> str:
        """What the process wrote on stdout after its ready line, so far."""
        return "".join(self._out)

    def stderr(self) -> str:
        """What the process wrote on stderr, so far (read from its log file, when it has one)."""
        return self._err.read_text() if isinstance(self._err, Path) else "".join(self._err)

    def stop(self) -> None:
        """SIGTERM, and wait for it to end (it shuts down cleanly); nothing if it has ended already."""
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=30)
        self._join()

    def kill(self) -> None:
        """SIGKILL (no chance to clean up), and wait for it to be gone."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._join()

    def _join(self) -> None:
        for drain in self._drains:
            drain.join(timeout=5)


def _drain(stream: IO[str], into: list[str]) -> threading.Thread:
    def run() -> None:
        for line in stream:
            into.append(line)
        stream.close()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def start(command: Sequence[str], *, env: dict[str, str] | None = None, log: Path | None = None) -> Served:
    """Start ``command`` and read its first line, which must name the address it serves (``ready at
    http://HOST:PORT``); fails with what the process said otherwise.  Its stderr goes to the file ``log``
    when given (read at once by :meth:`Served.stderr`), else it is drained into memory."""
    with (log.open("w") if log is not None else nullcontext(subprocess.PIPE)) as errors:
        process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=errors, text=True,
                                   env={**os.environ, **(env or {})})
    assert process.stdout is not None
    out: list[str] = []
    err: list[str] | Path = log if log is not None else []
    drains = []
    if isinstance(err, list):  # from the start: a chatty start-up must not block on a full pipe
        assert process.stderr is not None
        drains.append(_drain(process.stderr, err))
    line = process.stdout.readline()
    match = READY.search(line)
    if match is None:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=30)
        for drain in drains:
            drain.join(timeout=5)
        said = err.read_text() if isinstance(err, Path) else "".join(err)
        raise AssertionError(f"{' '.join(command)!r} printed no ready line first: {line!r}; stderr: {said[-2000:]!r}")
    drains.append(_drain(process.stdout, out))
    served = Served(process, match.group(1), match.group(2), int(match.group(3)), out, err, drains)
    served.ready = line
    return served


def serve_command(*options: str, data_dir: Path, port: int = 0) -> list[str]:
    """``baccarat serve --port PORT --data-dir DATA_DIR OPTIONS...`` (port 0: one the system picks)."""
    return [EXE, "serve", "--port", str(port), "--data-dir", str(data_dir), *options]


def serve(*options: str, data_dir: Path, port: int = 0, env: dict[str, str] | None = None) -> Served:
    """``baccarat serve`` on ``data_dir`` (SQLite there unless ``options`` name a ``--database``), started."""
    return start(serve_command(*options, data_dir=data_dir, port=port), env=env)


@contextmanager
def served(*options: str, data_dir: Path, port: int = 0, env: dict[str, str] | None = None) -> Iterator[Served]:
    """:func:`serve`, stopped at the end of the block."""
    server = serve(*options, data_dir=data_dir, port=port, env=env)
    try:
        yield server
    finally:
        server.stop()
