"""A bound on one await that never swallows a cancellation.

Python 3.11's ``asyncio.wait_for`` returns the inner result when the cancellation of the
waiting task arrives just as the inner await finishes (cpython gh-86296, fixed in 3.12):
the Ctrl+C is lost and, say, a serve's readiness wait polls on for its whole timeout (seen
under load: a serve still running a minute after Ctrl+C). ``asyncio.timeout`` counts
cancellations on the task and re-raises the caller's, so every bounded await of sparktui
goes through it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable``, ``TimeoutError`` after ``seconds`` (None: no bound)."""
    async with asyncio.timeout(seconds):
        return await awaitable
