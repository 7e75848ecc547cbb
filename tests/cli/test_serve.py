"""``baccarat serve --workers N``'s supervisor: how long a worker has to answer its health check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import serve
from baccarat.server.storage.settings import Settings


def test_a_starting_worker_has_thirty_seconds_before_the_supervisor_kills_it(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    """Issue 40 item 6: uvicorn's 5 s health check killed three workers still starting under load."""
    import uvicorn.supervisors

    ran: list[Any] = []

    class Supervisor:
        def __init__(self, config: Any, sockets: list[Any]) -> None:
            ran.append(config)
            for sock in sockets:
                sock.close()

        def run(self) -> None:
            pass

    monkeypatch.setattr(uvicorn.supervisors, "Multiprocess", Supervisor)
    monkeypatch.setattr(serve, "_announce_when_ready", lambda *_: None)
    settings = Settings(data_dir=tmp_path)
    for name in ("BACCARAT_DATABASE_URL", "BACCARAT_BETTING_SECONDS", "BACCARAT_DATA_DIR"):
        monkeypatch.setenv(name, "")  # what the workers inherit, set by the call: put back afterwards
    serve._serve_workers(settings, "sqlite://", 2, {"host": "127.0.0.1", "port": 0})
    [config] = ran
    assert config.workers == 2 and config.timeout_worker_healthcheck == serve.WORKER_HEALTHCHECK_SECONDS == 30
