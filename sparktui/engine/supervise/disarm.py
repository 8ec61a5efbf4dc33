"""An operator's stop, end of supervision or power off, as supervisors must see it.

The mark goes on every node first; then, for each head whose supervisor the mark
disarms, the action waits until that supervisor has ended (it reads the marks at every
check, so within about an interval), at most the lifetime of its lease. A supervisor
that has not ended by then still reads the mark before any restart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable

from sparktui.engine.api import Progress, ProgressSink, Step, StepState
from sparktui.engine.remote.transport import Transport
from sparktui.engine.supervise.record import Mark
from sparktui.engine.supervise.remote import read_status, write_marks
from sparktui.i18n import _

POLL_SECONDS = 0.5


async def disarm(transports: Iterable[Transport], heads: Iterable[Transport], mark: Mark,
                 progress: ProgressSink | None, *, timeout: float,
                 read_timeout: float) -> list[str]:
    """Write ``mark`` on ``transports`` (each within ``timeout``), then wait for the
    supervisors of ``heads`` it ends (each look within ``read_timeout``, as health's).
    The nodes that could not take the mark."""
    missed = await write_marks(list(transports), mark, timeout)
    await asyncio.gather(*(_ended(t, mark, progress, read_timeout)
                           for t in dict.fromkeys(heads)))
    return missed


async def _ended(t: Transport, mark: Mark, progress: ProgressSink | None,
                 timeout: float) -> None:
    def say(state: StepState, detail: str) -> None:
        if progress is not None:
            progress(Progress(Step.SUPERVISE, t.node.name, state, detail))

    status = await read_status(t, timeout)
    lease = status.lease
    if not status.active or lease is None or not mark.disarms(lease.cluster, lease.recipe):
        return
    say(StepState.WAITING, _("until the supervisor {holder} ends").format(holder=lease.holder))
    deadline = time.monotonic() + lease.ttl
    while time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        status = await read_status(t, timeout)
        if not status.active or status.lease is None or status.lease.token != lease.token:
            say(StepState.OK, _("the supervisor {holder} ended").format(holder=lease.holder))
            return
    say(StepState.WARN, _("the supervisor {holder} is still running; it reads the mark "
                          "before any restart").format(holder=lease.holder))
