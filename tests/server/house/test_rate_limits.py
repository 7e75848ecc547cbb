"""Limits of the service, not of a process (issue 29, items 6 and 7): a victim is not locked out by
someone else's wrong passwords from another address; sign-in failures, registrations and table sockets
are counted in the database, so two ``baccarat serve`` processes on one PostgreSQL keep the documented
limits, and a dead process's sockets stop counting after the lease timeout."""

from __future__ import annotations

import json
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from baccarat.core.errors import AuthenticationError
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts
from baccarat.server.house import rate_limits as ratelimit
from baccarat.server.live import leases as socketleases
from baccarat.server.live import sockets as live
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Attempt
from baccarat.server.storage.settings import Settings

from ...conftest import ON_POSTGRESQL, api_client

GOOD = "correct horse"


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, grant=0)
    yield from api_client(settings)


def _from(client: TestClient, address: str) -> TestClient:
    """Requests to the same running app from another client address (no second lifespan)."""
    return TestClient(client.app, client=(address, 50_000))


def _log_in(client: TestClient | httpx.Client, name: str, password: str = GOOD) -> httpx.Response:
    return client.post("/api/sessions", json={"username": name, "password": password})


# --- item 6: a victim locked out by someone else -------------------------------------------------


def test_twelve_wrong_passwords_from_one_address_do_not_lock_the_owner_out_from_another(client):
    assert client.post("/api/accounts", json={"username": "victim", "password": GOOD}).status_code == 201
    attacker, owner = _from(client, "203.0.113.66"), _from(client, "198.51.100.7")
    answers = [_log_in(attacker, "victim", f"guess number {n}").status_code for n in range(12)]
    assert answers == [401] * ratelimit.LOGIN_FAILURES + [429] * (12 - ratelimit.LOGIN_FAILURES)
    assert _log_in(attacker, "VICTIM").status_code == 429  # that address waits, even with the right password
    started = time.perf_counter()
    answer = _log_in(owner, "victim")
    assert answer.status_code == 201, answer.text  # the owner, from an address with no failures: in, at once
    assert time.perf_counter() - started < 1.0


@pytest.mark.slow
def test_many_addresses_slow_a_username_down_but_never_refuse_its_owner(client):
    """Past the backstop (failures for the name from all addresses), each sign-in for it waits first,
    a wait that grows and is capped; the right password from an address with no failures still gets in."""
    assert client.post("/api/accounts", json={"username": "popular", "password": GOOD}).status_code == 201
    at = ratelimit.wall_seconds()
    failures = ratelimit.USERNAME_BACKSTOP + ratelimit.SLOW_STEP  # a botnet: one failure from each address
    rows = [{"kind": "login", "name": "popular", "address": f"10.66.{n // 250}.{n % 250}", "at": at}
            for n in range(failures)]
    transaction(client.app.state.sessions, lambda s: s.execute(insert(Attempt), rows))  # type: ignore[attr-defined]
    limiter: ratelimit.LoginLimiter = client.app.state.limiter  # type: ignore[attr-defined]
    assert limiter.slowdown("popular", "198.51.100.8") == ratelimit.slowdown_for(failures) == 2 * ratelimit.SLOW_FIRST
    assert limiter.slowdown("someone_else", "198.51.100.8") == 0.0
    started = time.perf_counter()
    answer = _log_in(_from(client, "198.51.100.8"), "popular")
    waited = time.perf_counter() - started
    assert answer.status_code == 201, answer.text
    assert 2 * ratelimit.SLOW_FIRST <= waited < 2 * ratelimit.SLOW_FIRST + 1.5
    # signed in from there: the address is known for the account, and its next sign-in is answered at once
    assert limiter.slowdown("popular", "198.51.100.8") == 0.0 < limiter.slowdown("popular", "198.51.100.9")


def test_the_backstop_wait_grows_and_is_capped():
    waits = [ratelimit.slowdown_for(ratelimit.USERNAME_BACKSTOP + n * ratelimit.SLOW_STEP) for n in range(8)]
    assert ratelimit.slowdown_for(ratelimit.USERNAME_BACKSTOP - 1) == 0.0
    assert waits == sorted(waits) and waits[0] == ratelimit.SLOW_FIRST and waits[-1] == ratelimit.SLOW_MOST
    assert ratelimit.slowdown_for(10**9) == ratelimit.SLOW_MOST


@ON_POSTGRESQL
def test_two_limiters_on_one_database_count_the_same_attempts(sessions, ticks):
    """Each process has its own limiter; they count the same rows: 10 failures spread over two is the limit."""
    ticks.value = 5000.0
    one, two = ratelimit.LoginLimiter(sessions, clock=ticks), ratelimit.LoginLimiter(sessions, clock=ticks)
    for n in range(ratelimit.LOGIN_FAILURES):
        with pytest.raises(AuthenticationError), (one if n % 2 else two).login("frank", "192.0.2.50"):
            raise AuthenticationError.coded("auth.wrong_password")
    for limiter in (one, two):
        with pytest.raises(ratelimit.RateLimitedError, match="for this username"), limiter.login("frank", "192.0.2.50"):
            pass
    for n in range(ratelimit.ADDRESS_REGISTRATIONS):
        with (one if n % 2 else two).registration("192.0.2.51"):
            pass
    with pytest.raises(ratelimit.RateLimitedError, match="new accounts"), one.registration("192.0.2.51"):
        pass


def test_old_attempts_are_pruned(sessions, ticks, monkeypatch):
    monkeypatch.setattr(ratelimit, "PRUNE_EVERY", 5)
    ticks.value = 7000.0
    limiter = ratelimit.LoginLimiter(sessions, clock=ticks)
    for n in range(4):
        with pytest.raises(AuthenticationError), limiter.login(f"name{n}", "192.0.2.60"):
            raise AuthenticationError.coded("auth.wrong_password")
    assert limiter.attempts() == 4
    ticks.advance(ratelimit.LOGIN_WINDOW + 1)
    with pytest.raises(AuthenticationError), limiter.login("name4", "192.0.2.60"):
        raise AuthenticationError.coded("auth.wrong_password")
    assert limiter.attempts() == 1  # the fifth write pruned the four that had left the window


# --- item 7: sockets counted across processes ----------------------------------------------------


@ON_POSTGRESQL
def test_a_dead_process_s_sockets_stop_counting_after_the_lease_timeout(sessions, ticks):
    ticks.value = 9000.0
    account = transaction(sessions, lambda s: accounts.register(s, "gina", GOOD, grant=0).id)
    dead = socketleases.Leases(sessions, process="dead", clock=ticks)
    alive = socketleases.Leases(sessions, process="alive", clock=ticks)
    taken = [dead.take(account, 1, most=live.MAX_SOCKETS) for _ in range(live.MAX_SOCKETS - 1)]
    mine = alive.take(account, 2, most=live.MAX_SOCKETS)
    assert None not in taken and mine is not None
    assert alive.take(account, 2, most=live.MAX_SOCKETS) is None  # eight, in two processes together
    ticks.advance(socketleases.TIMEOUT - 1)
    assert alive.renew() == 1  # the living process renews its own; the dead one renews nothing
    ticks.advance(2)
    assert alive.live(account) == 1  # the dead process's seven no longer count
    again = [alive.take(account, 3, most=live.MAX_SOCKETS) for _ in range(live.MAX_SOCKETS)]
    assert again[-1] is None and None not in again[:-1]
    alive.give_back(mine)
    assert alive.live(account) == live.MAX_SOCKETS - 1


@ON_POSTGRESQL
def test_sockets_opening_at_once_take_exactly_the_places_left(sessions):
    """20 sockets of one account open at once in two processes (their leases taken in group commits): 8 open."""
    account = transaction(sessions, lambda s: accounts.register(s, "ivy", GOOD, grant=0).id)
    processes = [socketleases.Leases(sessions, process="one"), socketleases.Leases(sessions, process="two")]
    barrier = threading.Barrier(20)
    taken: list[int | None] = []

    def open_one(n: int) -> None:
        barrier.wait()
        taken.append(processes[n % 2].take(account, 1, most=live.MAX_SOCKETS))

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(lease is not None for lease in taken) == live.MAX_SOCKETS
    assert processes[0].live(account) == live.MAX_SOCKETS


def _user(base: str, name: str) -> str:
    with httpx.Client(base_url=base, timeout=10) as client:
        assert client.post("/api/accounts", json={"username": name, "password": GOOD}).status_code == 201
        answer = _log_in(client, name)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["token"])


def _open(stack: ExitStack, base: str, token: str, table: int) -> tuple[str, object]:
    """A table socket on ``base``: ("state", socket) when it opens, (close code and reason, None) when refused."""
    socket = stack.enter_context(ws_connect(base.replace("http", "ws") + f"/ws/tables/{table}"))
    socket.send(json.dumps({"type": "auth", "token": token}))
    try:
        return json.loads(socket.recv(timeout=10))["type"], socket
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        return f"{closed.rcvd.code} {closed.rcvd.reason}", None


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_sixteen_sockets_over_two_processes_leave_eight_open(database_url: str, serve):
    bases = [serve("--database", database_url).url, serve("--database", database_url).url]
    token = _user(bases[0], "sockets_everywhere")
    with ExitStack() as stack:
        opened = [_open(stack, bases[n % 2], token, 1 + n % 3) for n in range(2 * live.MAX_SOCKETS)]
        kinds = [kind for kind, _ in opened]
        assert kinds == ["state"] * live.MAX_SOCKETS + [f"1008 {live.TOO_MANY}"] * live.MAX_SOCKETS, kinds
        first = opened[0][1]
        assert first is not None
        first.close()  # type: ignore[attr-defined]  # on the first process: its place is free in the other too
        deadline = time.monotonic() + 5
        while (kind := _open(stack, bases[1], token, 1)[0]) != "state" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert kind == "state"


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_forty_wrong_passwords_over_two_processes_get_the_answers_of_one(database_url: str, serve):
    bases = [serve("--database", database_url).url, serve("--database", database_url).url]
    with httpx.Client(base_url=bases[0], timeout=10) as one, httpx.Client(base_url=bases[1], timeout=10) as two:
        for name in ("alone", "spread"):
            assert one.post("/api/accounts", json={"username": name, "password": GOOD}).status_code == 201
        against_one = [_log_in(one, "alone", f"wrong guess {n}").status_code for n in range(40)]
        spread = [_log_in((one, two)[n % 2], "spread", f"wrong guess {n}").status_code for n in range(40)]
    expected = [401] * ratelimit.LOGIN_FAILURES + [429] * (40 - ratelimit.LOGIN_FAILURES)
    assert against_one == expected
    assert spread == expected


def test_a_restarted_sqlite_server_forgets_the_leases_of_the_process_before(tmp_path: Path):
    """SQLite has one serving process: at its start every lease in the database is a dead process's."""
    settings = Settings(data_dir=tmp_path, grant=0)
    with TestClient(create_app(settings)) as first:
        assert first.post("/api/accounts", json={"username": "harry", "password": GOOD}).status_code == 201
        token = _log_in(first, "harry").json()["token"]
        leases: socketleases.Leases = first.app.state.leases  # type: ignore[attr-defined]
        account = int(first.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["id"])
        crashed = socketleases.Leases(leases.sessions, process="crashed")
        assert all(crashed.take(account, 1, most=live.MAX_SOCKETS) for _ in range(live.MAX_SOCKETS))
    with TestClient(create_app(settings)) as second, second.websocket_connect("/ws/tables/1") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"  # not refused for the crashed process's eight
