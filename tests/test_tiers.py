"""The fast tiers' guard against waiting on the wall clock (``tests/conftest.py``): a sleep of the tests' own
code is noted, a yield is not, and the product's own sleeps are not the guard's business."""

from __future__ import annotations

import asyncio

from baccarat.server.storage import clock

from .conftest import _GUARD, _NoRealSleep


def _guard() -> _NoRealSleep:
    """A guard of its own, sleeping with the real functions (the session's guard is installed around this test)."""
    guard = _NoRealSleep()
    guard.time_sleep, guard.asyncio_sleep = _GUARD.time_sleep, _GUARD.asyncio_sleep
    return guard


def test_a_sleep_in_a_test_is_noted_with_its_place_and_a_yield_is_not() -> None:
    guard = _guard()
    guard.slept = []
    guard.sleep(0)
    assert guard.slept == []
    guard.sleep(0.001)
    (noted,) = guard.slept
    assert noted.startswith("test_tiers.py:") and noted.endswith("slept 0.001 s")


def test_an_asyncio_sleep_in_a_test_is_noted_and_the_product_s_are_not() -> None:
    guard = _guard()
    guard.slept = []
    real = asyncio.sleep
    asyncio.sleep = guard.asleep  # type: ignore[assignment]
    try:
        asyncio.run(guard.asleep(0.001))
        assert len(guard.slept) == 1
        asyncio.run(clock.RealTime().sleep(0.001))  # the product's loop, on real time: src/, not noted
        assert len(guard.slept) == 1
    finally:
        asyncio.sleep = real


def test_outside_a_fast_test_nothing_is_noted() -> None:
    guard = _guard()
    guard.sleep(0.001)
    assert guard.slept is None
