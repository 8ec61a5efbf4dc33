"""A Ctrl+C that lands just as a bounded await finishes is not lost (sparktui.engine.deadline).

Python 3.11's ``asyncio.wait_for`` returned the inner result then, and the cancelled task
went on: a serve's readiness wait polled on after Ctrl+C, a minute later still running
(tests/engine/workloads/test_serve_interrupt.py under load). The race is made here exactly: the
inner await completes and the task is cancelled in the same turn of the loop."""

from __future__ import annotations

import asyncio
import sys

import pytest

from sparktui.engine.deadline import within


async def _cancel_as_it_finishes(bounded) -> BaseException | str:
    inner: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def caller() -> str:
        await bounded(inner, 30)
        return "went on after its Ctrl+C"

    task = asyncio.ensure_future(caller())
    await asyncio.sleep(0)  # the caller now waits on the bounded await
    inner.set_result("answer")
    task.cancel()
    (outcome,) = await asyncio.gather(task, return_exceptions=True)
    return outcome


def test_a_cancel_as_the_bounded_await_finishes_cancels_the_caller():
    assert isinstance(asyncio.run(_cancel_as_it_finishes(within)), asyncio.CancelledError)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="wait_for was rewritten in 3.12")
def test_asyncio_wait_for_of_python_3_11_loses_that_cancel():
    """Why ``within`` exists: the same race through ``asyncio.wait_for`` is swallowed."""
    assert asyncio.run(_cancel_as_it_finishes(asyncio.wait_for)) == "went on after its Ctrl+C"


def test_within_still_bounds_the_await():
    async def never() -> None:
        await asyncio.sleep(3600)

    with pytest.raises(TimeoutError):
        asyncio.run(within(never(), 0.01))
