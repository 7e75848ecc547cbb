"""The server's logs: one line per event on stderr, as a JSON object or as readable text, with the request,
table, round and account each line happened in.

``baccarat serve --log-format json`` writes each line as one JSON object: ``time`` (UTC, ISO 8601 to the
millisecond), ``level``, ``logger``, ``event`` (the message), then the context it happened in where it applies
(``request_id``, ``table_id``, ``round_id``, ``account_id``), the fields its logger gave (an access line's
``method``, ``path``, ``status``, ``duration_ms``...) and ``exception`` (the traceback) if any.  ``--log-format text``
writes the same as ``TIME LEVEL LOGGER: EVENT key=value ...``.  uvicorn's own loggers go through the same
handler, so every line of a server process has one form.

What a client sent may reach a line (a path, a header's value): no line carries a control character as it is
(:func:`escape`), so a path holding ``%0A`` cannot start a forged line and ``%1B`` cannot drive the reader's
terminal; and no line carries a URL's query string (:class:`NoQuery`: uvicorn names a socket's URL with it, and a
client may have put a token or a password there).

The context is kept in a :class:`~contextvars.ContextVar` holding one mutable dict per request or socket
(:func:`context`), so what is learnt on the way (the account, :func:`note`), even in a worker thread (which runs
in a copy of the context, holding the same dict), is seen by every later line of that request, its access line
included.  Passwords, tokens and unrevealed seeds are never put in a log line: no logger is given them.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

#: The forms a line can take (``--log-format``).
FORMATS = ("json", "text")
#: The levels ``--log-level`` takes, least severe first.
LEVELS = ("debug", "info", "warning", "error", "critical")
#: The context's fields, in the order a text line shows them.
CONTEXT = ("request_id", "table_id", "round_id", "account_id")

#: What a line must not carry as it is: the C0 and C1 controls and DEL (a newline would start a line of the
#: sender's making, an escape sequence would drive the reader's terminal), and Unicode's line and paragraph
#: separators (line breaks to some readers).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: The same, left in a JSON line by :func:`json.dumps` (which escapes only the C0 controls).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029]")
#: A URL's query string in a path-like argument of a record (uvicorn's ``"WebSocket /ws/tables/1?token=..."``).
_QUERY = re.compile(r"\A(/[^?]*)\?.*\Z", re.DOTALL)

_context: ContextVar[dict[str, object] | None] = ContextVar("baccarat_log_context", default=None)
#: A record's own attributes (everything else on it came from ``extra=`` or the context); uvicorn's
#: ``color_message`` is the message again, with terminal colours.
_OWN = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName",
                                                                     "color_message"}


@contextmanager
def context(**fields: object) -> Iterator[dict[str, object]]:
    """Lines logged inside carry ``fields`` (and the enclosing context's); yields the context's dict."""
    token = _context.set({**(_context.get() or {}), **fields})
    try:
        yield _context.get() or {}
    finally:
        _context.reset(token)


def note(**fields: object) -> None:
    """Add ``fields`` to the current context (nothing outside one): the rest of the request or socket's lines,
    and its access line, carry them."""
    current = _context.get()
    if current is not None:
        current.update(fields)


class Throttled:
    """A warning that can repeat many times a second (a loop meeting a database that is away) said at most once per
    reason every ``every`` seconds, each line saying how many went unsaid since the one before (``clock``: seconds,
    the server's :func:`~baccarat.server.storage.clock.monotonic` in the server)."""

    def __init__(self, logger: logging.Logger, *, every: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger, self._every, self._clock = logger, every, clock
        self._lock = threading.Lock()
        self._said: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}

    def due(self, reason: str) -> int | None:
        """Whether ``reason`` may be said now: how many went unsaid since it last was, or None (counted as unsaid)
        while it was said in the last ``every`` seconds."""
        with self._lock:
            now = self._clock()
            said = self._said.get(reason)
            if said is not None and now - said < self._every:
                self._unsaid[reason] = self._unsaid.get(reason, 0) + 1
                return None
            self._said[reason] = now
            return self._unsaid.pop(reason, 0)

    def warning(self, reason: str, message: str, *args: object) -> bool:
        """Log ``message % args`` as a warning unless ``reason`` was said in the last ``every`` seconds; whether it
        was."""
        unsaid = self.due(reason)
        if unsaid is None:
            return False
        self._logger.warning(message + (" (%d more since the last line)" if unsaid else ""),
                             *args, *((unsaid,) if unsaid else ()))
        return True


class ContextFilter(logging.Filter):
    """Puts the current context's fields on each record passing the handler (a field the record was given
    itself wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_context.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields of ``record`` beyond the standard ones: its context first, then what its logger gave."""
    extra = {name: value for name, value in vars(record).items() if name not in _OWN and not name.startswith("_")}
    return {**{name: extra.pop(name) for name in CONTEXT if name in extra}, **extra}


def escape(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x0a``, ``\\x1b``, ``\\u2028``)."""
    return _UNSAFE.sub(lambda found: f"\\x{ord(found[0]):02x}" if ord(found[0]) < 0x100 else f"\\u{ord(found[0]):04x}",
                       text)


class NoQuery(logging.Filter):
    """Cuts the query string off every path-like argument of a record: uvicorn logs a socket's URL with it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(arg, str) and "?" in arg for arg in record.args):
            record.args = tuple(_QUERY.sub(r"\1", arg) if isinstance(arg, str) else arg for arg in record.args)
        return True


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON (see the module's description)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line: dict[str, Any] = {"time": moment,
                                "level": record.levelname.lower(), "logger": record.name, "event": record.getMessage(),
                                **fields(record)}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        # the controls json.dumps leaves can only be inside strings: their escapes there are JSON's own
        return _UNSAFE_IN_JSON.sub(lambda found: f"\\u{ord(found[0]):04x}",
                                   json.dumps(line, default=str, ensure_ascii=False))


class TextFormatter(logging.Formatter):
    """A record as ``TIME LEVEL LOGGER: EVENT key=value ...``, its controls escaped (:func:`escape`); a traceback on
    the lines after it, each indented (so none can pass for a line of its own)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC).isoformat(sep=" ", timespec="milliseconds")[:-6] + "Z"
        words = " ".join(f"{name}={value}" for name, value in fields(record).items())
        line = escape(f"{moment} {record.levelname:<8} {record.name}: {record.getMessage()}"
                      + (f" {words}" if words else ""))
        after = [self.formatException(record.exc_info)] if record.exc_info else []
        if record.stack_info:
            after.append(self.formatStack(record.stack_info))
        return "\n    ".join([line, *(escape(each) for text in after for each in text.splitlines())])


def default_format() -> str:
    """``text`` when stderr is a terminal (a person reads it), else ``json`` (a collector does)."""
    return "text" if sys.stderr.isatty() else "json"


def config(form: str, level: str) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` configuration: every logger (the server's, uvicorn's, the libraries')
    to stderr in ``form`` (one of :data:`FORMATS`) from ``level`` (one of :data:`LEVELS`) up.  Given to uvicorn
    as its ``log_config``, so that each ``--workers`` process sets itself up the same way; uvicorn's access log
    is left off, :mod:`baccarat.server.live.access` writes the access lines."""
    if form not in FORMATS or level not in LEVELS:
        raise ValueError(f"log format {form!r} or level {level!r} unknown")
    formatter = JsonFormatter if form == "json" else TextFormatter
    quiet = {"level": level.upper(), "handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,  # the modules' loggers are made on import, before this runs
        "filters": {"context": {"()": f"{__name__}.ContextFilter"}, "no_query": {"()": f"{__name__}.NoQuery"}},
        "formatters": {"line": {"()": f"{formatter.__module__}.{formatter.__qualname__}"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "line",
                                "filters": ["context", "no_query"]}},
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        # uvicorn's loggers lose the handlers its default configuration gave them and write through the root's
        "loggers": {"uvicorn": quiet, "uvicorn.error": quiet,
                    # Alembic says which database dialect it found at every start, twice: its warnings only
                    "alembic": {"level": max(level.upper(), "WARNING", key=logging.getLevelName)},
                    "uvicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False}},
    }
