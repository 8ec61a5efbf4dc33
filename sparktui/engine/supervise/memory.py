"""Before a restart: each node's memory back to what the recipe needs.

On GB10's unified memory a crashed engine's memory is not always given back: the next
serve then fails to start (vLLM: "Free memory on device ... is less than desired GPU
memory utilization", or an out-of-memory while loading), restart after restart, until the
node is rebooted. So once the group is stopped, the supervisor reads every engine node's
``MemAvailable`` until each has what the recipe's engine claims as it starts (the fit's
figure, ``engine_claim``: its share of the node's ``MemTotal``), for at most
``supervise_memory_wait_seconds``; a node still short then is a give-up naming it
("reboot it"), not a restart into an out-of-memory.

A node whose memory cannot be read is not called short: the serve that follows says
what is wrong with it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping

from sparktui.engine.deadline import within
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.supervise.outcomes import Short
from sparktui.engine.supervise.record import Mark, Reason
from sparktui.engine.telemetry.nodestats import parse_meminfo
from sparktui.plan.fit.calc import engine_claim
from sparktui.plan.fit.probe import question_for
from sparktui.plan.model import LaunchPlan

MEMINFO = "cat /proc/meminfo"


def share_of(plan: LaunchPlan) -> float | None:
    """The share of each node's memory the recipe's engine takes; None when its flags do
    not say (a value that is no number: nothing to compare with)."""
    settings = question_for(plan).settings
    return settings.share if settings is not None else None


def short(node: str, meminfo: str, engine: str, share: float) -> Short | None:
    """``node`` is short when its MemAvailable is below the engine's claim on its
    MemTotal; None when it is not, or its figures cannot be read."""
    mem = parse_meminfo(meminfo)
    total, available = mem.get("MemTotal"), mem.get("MemAvailable")
    if total is None or available is None or not all(
            math.isfinite(x) and x >= 0 for x in (total, available)):
        return None
    needed = engine_claim(engine, share, int(total))
    return Short(node, available, needed) if available < needed else None


async def _look(t: Transport, engine: str, share: float, timeout: float) -> Short | None:
    try:
        result = await within(t.run(MEMINFO, timeout=timeout), timeout + 1)
    except (NodeError, TimeoutError):
        return None
    return short(t.node.name, result.stdout, engine, share) if result.ok else None


async def memory_back(plan: LaunchPlan, transports: Mapping[str, Transport], *,
                      bound: float, interval: float, timeout: float,
                      disarming: Callable[[], Awaitable[Mark | None]],
                      waiting: Callable[[list[Short]], Awaitable[None]],
                      ) -> Reason | Mark | None:
    """Wait until no engine node of ``plan`` is short, looking every ``interval``, for at
    most ``bound`` seconds. None: go on with the restart; a ``Mark``: an operator's that
    ends supervision (read between looks); a ``Reason``: give up.
    ``waiting`` hears the nodes that are short, the first time some are."""
    share = share_of(plan)
    if share is None or not plan.nodes:
        return None
    start = time.monotonic()
    told = False
    while True:
        found = await asyncio.gather(*(_look(transports[n.name], plan.engine, share, timeout)
                                       for n in plan.nodes))
        shorts = [s for s in found if s is not None]
        if not shorts:
            return None
        waited = time.monotonic() - start
        if waited >= bound:
            worst = min(shorts, key=lambda s: s.available - s.needed)
            return Reason("memory_not_reclaimed", {
                "node": worst.node, "available": worst.available, "needed": worst.needed,
                "recipe": plan.recipe, "waited": round(waited, 1)})
        if not told:
            told = True
            await waiting(shorts)
        await asyncio.sleep(max(0.0, min(interval, bound - waited)))
        mark = await disarming()
        if mark is not None:
            return mark
