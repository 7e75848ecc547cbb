"""The server's time (:mod:`baccarat.server.storage.clock`): the process's own :class:`RealTime` and the tests'
:class:`ManualTime`, whose ``wait(event, timeout)`` says whether the event came first, and whose ``advance`` and
``settle`` run what falls due in order and name a task that never settles."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baccarat.server.storage.clock import ManualTime, RealTime, SteadyClock

START = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


class _Loop:
    """``scene()`` spawned on ``held`` in an event loop of its own thread, as the server's loops run beside a test
    that moves the time: spawned before the test's first ``advance``, which then waits for it from the start."""

    def __init__(self, held: ManualTime, scene: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self.result: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        started = threading.Event()

        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            task = held.spawn(scene())
            started.set()
            self.result = await task

        self.thread = threading.Thread(target=asyncio.run, args=(main(),))
        self.thread.start()
        started.wait()

    def join(self) -> Any:
        self.thread.join(timeout=30)
        assert not self.thread.is_alive()
        return self.result


def test_real_time_says_whether_the_event_came_within_the_timeout():
    async def scene() -> tuple[bool, bool, bool]:
        real = RealTime()
        already = asyncio.Event()
        already.set()
        never = asyncio.Event()
        soon = asyncio.Event()
        asyncio.get_running_loop().call_soon(soon.set)  # set by the loop's next turn, long before 60 s
        # a timeout of 0 s gives up at once (asyncio.wait_for), with no wait on the wall; a set event, or one set
        # while waiting, ends the wait long before its timeout of 60 s
        return await real.wait(already, 60), await real.wait(never, 0), await real.wait(soon, 60)

    assert asyncio.run(scene()) == (True, False, True)


def test_a_manual_wait_on_an_event_already_set_is_true_at_once():
    held = ManualTime(START)
    event = asyncio.Event()
    event.set()
    assert asyncio.run(held.wait(event, 5.0)) is True
    assert held.monotonic() == 0.0
    held.advance(10.0)  # nothing was left asleep to wake
    assert held.monotonic() == 10.0


def test_a_manual_wait_ends_when_the_event_is_set_before_its_timeout():
    held = ManualTime(START)
    seen: list[tuple[str, float]] = []

    async def scene() -> bool:
        event = asyncio.Event()

        async def setter() -> None:
            await held.sleep(2.0)
            seen.append(("set", held.monotonic()))
            event.set()
        held.spawn(setter())
        got = await held.wait(event, 5.0)
        seen.append((f"woke {got}", held.monotonic()))
        return got

    running = _Loop(held, scene)
    held.advance(3.0)  # the setter at 2 s; the wait's own 5 s timeout is then cancelled, and skipped
    assert running.join() is True
    # woken by the event at 2 s, before its timeout: advance waits for a task another task's event woke, as for one
    # it woke itself, before it moves the time on
    assert seen == [("set", 2.0), ("woke True", 2.0)], seen
    held.advance(5.0)  # past the cancelled timeout: nothing wakes
    assert len(seen) == 2 and held.monotonic() == 8.0


def test_a_manual_wait_whose_timeout_passes_first_is_false_at_the_timeout():
    held = ManualTime(START)
    seen: list[tuple[str, float]] = []

    async def scene() -> bool:
        event = asyncio.Event()
        got = await held.wait(event, 3.0)
        seen.append((f"woke {got}", held.monotonic()))
        event.set()  # too late for the wait, which has stopped waiting on it
        return got

    running = _Loop(held, scene)
    held.advance(2.9)
    assert seen == []  # still waiting
    held.advance(2.0)
    assert running.join() is False
    assert seen == [("woke False", 3.0)] and held.monotonic() == 4.9


def test_a_task_that_never_settles_is_named_after_the_settle_time():
    """A task of the server's that is busy, not asleep and not waiting on this time (here: an event of its own), is
    named by ``settle`` once :attr:`ManualTime.SETTLE` seconds of real time have passed (here none)."""
    held = ManualTime(START)
    held.SETTLE = 0.0
    release = asyncio.Event()

    async def stuck() -> str:
        await release.wait()  # not the held time's wait: advance cannot know when it would end
        return "released"

    running = _Loop(held, stuck)
    try:
        with pytest.raises(TimeoutError, match=r"these tasks did not settle in 0 s: \[<Task"):
            held.settle()
        with pytest.raises(TimeoutError, match="did not settle"):
            held.advance(1.0)
        assert held.monotonic() == 0.0  # time did not move past a task it could not wait for
    finally:
        assert running.loop is not None
        running.loop.call_soon_threadsafe(release.set)
    assert running.join() == "released"
    held.settle()  # it ended: nothing is busy now


# --- rounds that must never stop a table (attack: a wall-clock step) ----------------------------------------


T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_the_steady_clock_ignores_wall_clock_steps(ticks):
    wall = [T0]
    ticks.value = 100.0
    clock = SteadyClock(wall=lambda: wall[0], monotonic=ticks)
    wall[0] = T0 + timedelta(hours=13)  # the wall clock jumps forward...
    ticks.advance(2)
    assert clock.now() == T0 + timedelta(seconds=2)
    wall[0] = T0 - timedelta(hours=13)  # ...and back
    ticks.advance(3)
    assert clock.now() == T0 + timedelta(seconds=5)


@pytest.mark.slow
def test_a_wall_clock_step_does_not_stop_a_live_table(tmp_path):
    """The whole server with the process's wall clock moved 13 hours forward and then back: rounds
    still close on time and tokens stay valid (old servers kept rounds closing 13 h ahead)."""
    import time

    import time_machine
    from fastapi.testclient import TestClient

    from baccarat.server.api.app import create_app
    from baccarat.server.storage.settings import Settings

    settings = Settings(data_dir=tmp_path, betting_seconds=0.5)
    with TestClient(create_app(settings)) as client:
        client.post("/api/accounts", json={"username": "walt", "password": "correct horse"})
        token = client.post("/api/sessions", json={"username": "walt", "password": "correct horse"}).json()["token"]
        me = {"Authorization": f"Bearer {token}"}
        table = client.get("/api/tables").json()[1]  # EZ
        assert client.post(f"/api/tables/{table['id']}/seats", json={}, headers=me).status_code == 201
        with time_machine.travel(datetime.now(UTC) + timedelta(hours=13), tick=True):
            time.sleep(1.2)
        with time_machine.travel(datetime.now(UTC) - timedelta(hours=13), tick=True):
            time.sleep(1.2)
            assert client.get("/api/me", headers=me).status_code == 200  # still logged in
            # a table nobody watches and nobody bets at waits: walt bets (1.00, whenever betting is open)
            def number() -> int | None:  # the round on show (none between a result and the next window)
                return (client.get(f"/api/tables/{table['id']}").json()["round"] or {}).get("number")

            before = number()
            deadline = time.monotonic() + 20  # a window, then the paced deal and the result
            for attempt in itertools.count():
                if number() not in (before, None):
                    break
                assert time.monotonic() < deadline, "the table stopped dealing after the clock step"
                client.post(f"/api/tables/{table['id']}/bets", json={"bets": {"banker": 100}},
                            headers={**me, "Idempotency-Key": f"clock-step-{attempt:04d}"})
                time.sleep(0.1)
