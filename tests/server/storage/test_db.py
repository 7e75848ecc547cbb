"""The SQLite writer queue: first come, first served, re-entrant, and a waiter that gives up
does not block the ones behind it."""

from __future__ import annotations

import threading
import time

import pytest

from baccarat.server.storage.db import FairLock

from ...conftest import until


def test_the_lock_is_granted_in_arrival_order_even_to_a_thread_that_just_released_it():
    lock = FairLock()
    order: list[str] = []

    def writer(name: str) -> None:
        with lock:
            order.append(name)

    lock.__enter__()
    threads = []
    for name in "bcd":
        thread = threading.Thread(target=writer, args=(name,))
        thread.start()
        queued = len(threads) + 2
        until(lambda n=queued: lock._next_ticket == n)  # queued before the next one starts
        threads.append(thread)
    lock.__exit__()
    with lock:  # the releasing thread asks again: it goes behind b, c and d
        order.append("a")
    for thread in threads:
        thread.join()
    assert order == ["b", "c", "d", "a"]


def test_the_lock_is_re_entrant_and_released_by_the_outermost_exit():
    lock = FairLock()
    with lock, lock:
        pass
    taken = threading.Event()
    thread = threading.Thread(target=lambda: (lock.__enter__(), taken.set(), lock.__exit__()))
    thread.start()
    assert taken.wait(5)
    thread.join()


def test_a_waiter_that_is_interrupted_gives_up_its_turn():
    lock = FairLock()
    lock.__enter__()
    original = lock._state.wait

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    lock._state.wait = interrupted  # type: ignore[method-assign]
    outcome: list[str] = []

    def impatient() -> None:
        try:
            with lock:
                outcome.append("got it")
        except KeyboardInterrupt:
            outcome.append("gave up")

    thread = threading.Thread(target=impatient)
    thread.start()
    thread.join()
    lock._state.wait = original  # type: ignore[method-assign]
    assert outcome == ["gave up"]
    lock.__exit__()
    got = threading.Event()
    patient = threading.Thread(target=lambda: (lock.__enter__(), got.set(), lock.__exit__()))
    patient.start()
    assert got.wait(5), "the abandoned ticket blocked the queue"
    patient.join()


@pytest.mark.parametrize("threads", [8])
def test_many_writers_each_get_the_lock_once_and_never_together(threads):
    lock = FairLock()
    inside: list[int] = []
    seen: list[int] = []
    overlaps: list[int] = []

    def writer(n: int) -> None:
        with lock:
            inside.append(n)
            if len(inside) > 1:
                overlaps.append(n)
            time.sleep(0)  # a yield to the other threads
            seen.append(inside.pop())

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(seen) == list(range(threads)) and overlaps == []
