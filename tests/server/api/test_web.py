"""The page (:mod:`baccarat.server.api.web`) under attack (issue 11, item 8): its Content-Security-Policy's
connect-src is the page's own host only, whatever the Host header says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.storage.settings import Settings

from ...conftest import api_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """SQLite: for what does not depend on the database."""
    yield from api_client(Settings(data_dir=tmp_path, betting_seconds=600))


# --- 8. CSP connect-src (attack: a Host header that writes its own policy) ----------------------------------


def _connect_src(client: TestClient, host: str | None = None) -> str:
    policy = client.get("/", headers={"host": host} if host else {}).headers["content-security-policy"]
    directives = dict(directive.split(" ", 1) for directive in policy.split("; "))
    return directives["connect-src"]


def test_csp_connect_src_is_the_page_s_own_host_only(client):
    assert _connect_src(client) == "'self' ws://testserver wss://testserver"
    assert _connect_src(client, "127.0.0.1:9000") == "'self' ws://127.0.0.1:9000 wss://127.0.0.1:9000"
    assert _connect_src(client, "[::1]:8000") == "'self' ws://[::1]:8000 wss://[::1]:8000"
    for host in ("evil.example; script-src *", "a b", "x/y", "[::1", "-bad.example", "x" * 300, "host:123456"):
        assert _connect_src(client, host) == "'self'", host
