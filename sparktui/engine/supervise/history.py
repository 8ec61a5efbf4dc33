"""An ended supervision is history: once an operator acts on its group, a give-up (or a
supervisor that was lost) stops being an alert.

A supervisor that gave up leaves its record on the head as ``gave_up``, one that was
killed leaves its lease without heartbeat: both are alerts (the dashboard's header and
alerts strip, ``health``) until an operator's stop, end of supervision or power off of
that group, or a new serve of its recipe, clears them. The record then keeps what
happened, with what cleared it (``Record.cleared``), and reads as ended; a lapsed lease
is removed. A live supervisor is never touched: it reads the marks and ends itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from sparktui.engine.deadline import within
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.results import Progress, ProgressSink
from sparktui.engine.supervise import shell
from sparktui.engine.supervise.codes import clearing_said
from sparktui.engine.supervise.outcomes import Cleared
from sparktui.engine.supervise.record import Mark, Reason, Record, SupervisionStatus
from sparktui.engine.supervise.remote import read_status, who
from sparktui.steps import Step, StepState

LIVE = frozenset({"watching", "restarting", "memory", "backoff", "waiting"})
"""A record's statuses while its supervisor runs: what a lost supervisor left."""

Concerns = Callable[[str, str], bool]
"""Whether an action concerns the supervision of (cluster, recipe)."""


def closing(status: SupervisionStatus, concerns: Concerns,
            reason: Reason) -> tuple[Record | None, str | None]:
    """What to write (pure): the record made history, and the token of the lapsed lease
    to remove; (None, None) when there is nothing to clear."""
    if status.error is not None or status.active:
        return None, None
    lease = status.lease
    lapsed = lease.token if lease is not None and concerns(lease.cluster, lease.recipe) \
        else None
    record = status.record
    if record is None or record.cleared is not None \
            or not concerns(record.cluster, record.recipe):
        return None, lapsed
    if record.status == "gave_up" or (lapsed is not None and record.status in LIVE):
        return replace(record, cleared=reason), lapsed
    return None, lapsed


async def close(t: Transport, concerns: Concerns, reason: Reason, timeout: float,
                status: SupervisionStatus | None = None) -> Cleared | None:
    """Clear on head ``t`` what ``concerns`` names (``status``: as just read there); None
    when nothing was (or the head did not answer: the alert then stays, which is true of
    what it knows)."""
    if status is None:
        status = await read_status(t, timeout)
    record, lapsed = closing(status, concerns, reason)
    if record is None and lapsed is None:
        return None
    try:
        result = await within(
            t.run(shell.close(status.digest if record is not None else None, lapsed),
                  stdin=record.text() if record is not None else "", timeout=timeout),
            timeout)
    except (NodeError, TimeoutError):
        return None
    done = result.stdout.split()
    cleared = Cleared(t.node.name, record if "record" in done else None,
                      status.lease if "lease" in done else None)
    return cleared if cleared.record is not None or cleared.lease is not None else None


def by_mark(mark: Mark) -> tuple[Concerns, Reason]:
    """An operator's stop, end of supervision or power off: what it clears, and why."""
    return mark.disarms, mark.reason()


def by_serve(cluster: str, recipe: str) -> tuple[Concerns, Reason]:
    """A new serve of ``recipe``: it clears that recipe's supervision only."""
    return ((lambda c, r: (c, r) == (cluster, recipe)),
            Reason("served", {"cluster": cluster, "recipe": recipe, "by": who(),
                              "at": time.time()}))


async def after_serve(t: Transport, cluster: str, recipe: str, timeout: float,
                      progress: ProgressSink) -> None:
    """A new serve makes the recipe's give-up history (not a supervisor's own serve)."""
    cleared = await close(t, *by_serve(cluster, recipe), timeout)
    if cleared is not None:
        progress(Progress(Step.SUPERVISE, t.node.name, StepState.OK, clearing_said(cleared)))
