"""An operator's stop, end of supervision or power off, as supervisors must see it.

Each head's supervision is read first, then the mark goes on every node; then, for each
head whose supervisor the mark disarms, the action waits until that supervisor has ended
(it reads the marks at every check, so within about an interval), at most the lifetime
of its lease. A supervisor that has not ended by then still reads the mark before any
restart. What the mark concerns and no supervisor runs any more (a give-up, a lost
supervisor) is made history on that head (``history``): it is no alert after the
operator acted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable

from sparktui.engine.remote.transport import Transport
from sparktui.engine.results import Progress, ProgressSink
from sparktui.engine.supervise import history
from sparktui.engine.supervise.codes import DisarmSaid, clearing_said
from sparktui.engine.supervise.outcomes import Disarmed
from sparktui.engine.supervise.record import Lease, Mark, SupervisionStatus
from sparktui.engine.supervise.remote import read_status, write_marks
from sparktui.said import Said, said
from sparktui.steps import Step, StepState

POLL_SECONDS = 0.5
READ_TRIES = 3
"""Looks at a head's supervision before it counts as unread (``Disarmed.unread``)."""


async def disarm(transports: Iterable[Transport], heads: Iterable[Transport], mark: Mark,
                 progress: ProgressSink | None, *, timeout: float,
                 read_timeout: float) -> Disarmed:
    """Write ``mark`` on ``transports`` (each within ``timeout``), then wait for the
    supervisors of ``heads`` it ends (each look within ``read_timeout``, as health's),
    and clear what it concerns there.

    The heads are read before the mark is written: a supervisor quick to see the mark
    releases its lease before a read after it, and would be taken for none at all."""
    heads = list(dict.fromkeys(heads))
    before = await asyncio.gather(*(_read(t, read_timeout) for t in heads))
    missed = await write_marks(list(transports), mark, timeout)
    waited = await asyncio.gather(*(_ended(t, status, mark, progress, read_timeout)
                                    for t, status in zip(heads, before, strict=True)))
    concerns, reason = history.by_mark(mark)
    found = await asyncio.gather(*(history.close(t, concerns, reason, read_timeout, status)
                                   for t, (_lease, status) in zip(heads, waited, strict=True)))
    cleared = [c for c in found if c is not None]
    for c in cleared:
        if progress is not None:
            progress(Progress(Step.SUPERVISE, c.node, StepState.OK, clearing_said(c)))
    supervisors = [found for found, _status in waited if found is not None]
    unread = [t.node.name for t, (_found, status) in zip(heads, waited, strict=True)
              if status.error is not None]
    return Disarmed(missed, [lease for lease, ended in supervisors if ended],
                    [lease for lease, ended in supervisors if not ended], cleared, unread)


async def _read(t: Transport, timeout: float) -> SupervisionStatus:
    status = await read_status(t, timeout)
    for _again in range(READ_TRIES - 1):  # a loaded head may miss one look's time
        if status.error is None:
            break
        status = await read_status(t, timeout)
    return status


async def _ended(t: Transport, status: SupervisionStatus, mark: Mark,
                 progress: ProgressSink | None, timeout: float
                 ) -> tuple[tuple[Lease, bool] | None, SupervisionStatus]:
    """The live supervisor the mark disarms on head ``t`` (``status``: as read before the
    mark) and whether it ended in time (None when none ran there), and the head's
    supervision as last read."""
    def say(state: StepState, detail: Said) -> None:
        if progress is not None:
            progress(Progress(Step.SUPERVISE, t.node.name, state, detail))

    lease = status.lease
    # A lease whose heartbeat is late still has a supervisor that may be alive (a loaded
    # head): it is waited for like a fresh one; only its release or a new holder ends it.
    if lease is None or not mark.disarms(lease.cluster, lease.recipe):
        return None, status
    holder = lease.holder
    say(StepState.WAITING, said(DisarmSaid.UNTIL_ENDS, holder=holder))
    deadline = time.monotonic() + lease.ttl
    while time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        status = await read_status(t, timeout)
        if status.error is None and (status.lease is None
                                     or status.lease.token != lease.token):
            say(StepState.OK, said(DisarmSaid.ENDED, holder=holder))
            return (lease, True), status
    say(StepState.WARN, said(DisarmSaid.STILL_RUNNING, holder=holder))
    return (lease, False), status
