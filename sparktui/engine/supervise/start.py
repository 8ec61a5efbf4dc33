"""What a supervisor looks at before it decides how to start: every node of its group
having said what it runs.

A node whose look did not answer (its docker or its SSH did not, within the health
timeout) has said nothing: the group's container there may well run. Deciding on it would
read a failed check as "nothing there", and a healthy group would be stopped ("not whole")
or served over ("not running"). So the supervisor waits for every node to answer, as its
checks do for a node that does not answer, and an operator's stop written meanwhile still
ends it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from sparktui.engine.supervise.checks import Member, NodeLook, member_failures
from sparktui.engine.supervise.events import SuperviseResult
from sparktui.engine.supervise.record import Failure, Mark
from sparktui.said import Text


def unanswered(group: list[Member], looks: dict[str, NodeLook]) -> list[Failure]:
    """The group's nodes that did not say what they run (once each)."""
    return [f for f in member_failures(group, looks, {}) if f.kind == "unreachable"]


async def answered(group: list[Member], *, interval: float,
                   looks: Callable[[], Awaitable[dict[str, NodeLook]]],
                   ended: Callable[[dict[str, list[Mark]]], Awaitable[SuperviseResult | None]],
                   waiting: Callable[[list[Failure], Text | None], Awaitable[Text]],
                   ) -> dict[str, NodeLook] | SuperviseResult:
    """Look every ``interval`` until every node of ``group`` answered: its looks. A
    ``SuperviseResult``: ``ended`` read an end in the marks of a look (or the lease lost).
    ``waiting`` hears the nodes that did not answer, and says what it told last."""
    told: Text | None = None
    while True:
        cycle = time.monotonic()
        seen = await looks()
        result = await ended({n: x.marks for n, x in seen.items() if x.marks is not None})
        if result is not None:
            return result
        away = unanswered(group, seen)
        if not away:
            return seen
        told = await waiting(away, told)
        await asyncio.sleep(max(0.0, interval - (time.monotonic() - cycle)))
