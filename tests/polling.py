"""The one way a test waits for something: look until a condition holds, against a
deadline that only bounds a failure. A passing test never waits for the deadline, and a
loaded machine (six workers on two cores) only makes it look more often before it holds;
so the deadline is long, and a test that knows its wait is longer (a serve, a restart)
passes its own. There are no fixed pauses and no durations asserted: a benchmark in
benchmarks/ measures time, a test asserts behaviour (tests/test_no_time_bounds.py).

``eventually`` blocks (a test on the host fixtures, a CLI run in the test's process);
``eventually_async`` awaits, for a test whose event loop must run meanwhile: a Textual
pilot's app, an engine call. Both keep one deadline, ``_Deadline``."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

DEADLINE = 60.0
"""Seconds before a condition that never holds fails its test."""
EVERY = 0.05
"""Seconds between the first looks when the caller says nothing else."""
LONGEST = 0.5
"""Seconds between looks, at most, once a wait goes on: each look costs (a docker listing,
an SSH round trip), and twenty a second for a minute-long serve was CPU the other
workers' tests needed; the interval grows by a quarter per look from ``every``."""


def _intervals(every: float):
    """``every``, then a quarter longer each look, up to ``LONGEST`` (or ``every``, if the
    caller asked for more)."""
    longest = max(every, LONGEST)
    while True:
        yield every
        every = min(longest, every * 1.25)

Look = Callable[[], Awaitable[object]]


class _Deadline:
    """The one deadline: ``check`` fails the test once it has passed, naming ``what``."""

    def __init__(self, seconds: float, what: str, explain: Callable[[], str] | None) -> None:
        self.at, self.seconds, self.what, self.explain = (time.monotonic() + seconds, seconds,
                                                          what, explain)

    def check(self) -> None:
        if time.monotonic() > self.at:
            more = f"\n{self.explain()}" if self.explain is not None else ""
            raise AssertionError(f"{self.what}: still false after {self.seconds:g} s{more}")


def eventually(predicate: Callable[[], Any], seconds: float = DEADLINE,
               what: str = "condition", *, every: float = EVERY,
               explain: Callable[[], str] | None = None) -> Any:
    """``predicate()``'s first truthy value, looked at every ``every`` seconds; fails
    after ``seconds`` with ``what`` (and ``explain()``, when given) in the message."""
    deadline = _Deadline(seconds, what, explain)
    pauses = _intervals(every)
    while not (value := predicate()):
        deadline.check()
        time.sleep(next(pauses))
    return value


def pausing(pilot: Any, every: float = EVERY) -> Look:
    """A Textual pilot's look: its pause, which waits for the screen's widgets to drain
    their queues and then updates the screen, so a predicate on what is shown sees it."""
    return lambda: pilot.pause(every)


async def eventually_async(predicate: Callable[[], Any], seconds: float = DEADLINE,
                           what: str = "condition", *, look: Look | None = None,
                           settle: Look | None = None, every: float = EVERY,
                           explain: Callable[[], str] | None = None) -> Any:
    """``eventually`` in an event loop. Between looks ``look()`` is awaited, else a plain
    ``asyncio.sleep(every)``: during a long wait (a serve on the real cluster) the app runs
    on its own, where a pilot's pause at every look first drained each of the dashboard's
    widgets' queues and redrew the screen ten times a second. ``settle()`` is awaited
    once the predicate holds (``pilot.pause``: what follows sees a settled screen). A
    predicate may return an awaitable (an HTTP check): its result is what is looked at."""
    deadline = _Deadline(seconds, what, explain)
    pauses = _intervals(every)
    while not (value := await _value(predicate())):
        deadline.check()
        await (look() if look is not None else asyncio.sleep(next(pauses)))
    if settle is not None:
        await settle()
    return value


async def _value(given: Any) -> Any:
    return await given if inspect.isawaitable(given) else given
