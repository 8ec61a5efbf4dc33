"""What a supervisor tells whoever runs it (the CLI prints it, a dashboard can show it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from sparktui.engine.results import ActionResult, Progress, ProgressSink
from sparktui.engine.slurm.site import SlurmSite
from sparktui.engine.supervise.record import Failure, Lease, Reason
from sparktui.said import Text, text_json

if TYPE_CHECKING:
    from sparktui.config.models import Cluster, Config, Node
    from sparktui.engine.remote.transport import Transport
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.anywhere import Replan
    from sparktui.plan.model import LaunchPlan


class Happening(StrEnum):
    ARMED = "armed"  # the lease is ours; marks from before are known
    ADOPTED = "adopted"  # the group was running: watched as it is
    SERVING = "serving"  # the group was not running (or not whole): served
    HEALTHY = "healthy"  # every tier passed (the first time, or again after a failure)
    FAILING = "failing"  # a check failed (``count`` of ``of`` in a row)
    WAITING = "waiting"  # backoff before a restart
    RESTARTING = "restarting"
    RESTARTED = "restarted"
    RESTART_FAILED = "restart_failed"
    STEP = "step"  # a step of the restart's stop or serve (``progress``)
    GAVE_UP = "gave_up"  # an alert: the group is left as it is
    DISARMED = "disarmed"  # an operator's stop, end or power off: the supervisor ends
    INTERRUPTED = "interrupted"  # Ctrl+C or SIGTERM: the supervisor ends, the group stays
    LOST = "lost"  # another supervisor took the lease
    REFUSED = "refused"  # another supervisor holds the lease


ALERTS = frozenset({Happening.RESTARTING, Happening.GAVE_UP})
"""What a dashboard raises an alert for: each restart and each give-up."""


@dataclass(frozen=True)
class SuperviseEvent:
    kind: Happening
    text: Text = ""  # what it says (``codes.SuperviseSaid``), in words when shown
    failures: tuple[Failure, ...] = ()
    progress: Progress | None = None
    lines: tuple[str, ...] = ()  # the failed node's last log lines (give-up)
    count: int = 0  # FAILING: failed checks in a row; RESTARTING: restarts in the window
    of: int = 0

    def as_json(self) -> dict[str, Any]:
        """``supervise --json``'s line: the event's kind, what it says as its code and
        values, the failures as the head keeps them, a step's progress."""
        return {"event": self.kind.value, "said": text_json(self.text) if self.text else None,
                "failures": [f.as_dict() for f in self.failures], "count": self.count,
                "of": self.of, "lines": list(self.lines),
                "progress": self.progress.as_json() if self.progress else None}


SuperviseSink = Callable[[SuperviseEvent], None]


@dataclass(frozen=True)
class SuperviseResult:
    """How supervision ended: ``outcome`` is one of disarmed, interrupted, gave_up, lost,
    refused (``holder`` then holds the lease), failed (the head could not be reached)."""

    outcome: str
    reason: Reason | None = None
    holder: Lease | None = None
    detail: Text = ""
    failures: tuple[Failure, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """Ended on purpose: by an operator, or Ctrl+C."""
        return self.outcome in ("disarmed", "interrupted")

    def as_json(self) -> dict[str, Any]:
        """``supervise --json``'s last line: the outcome and why, as codes and values."""
        return {"result": self.outcome,
                "reason": self.reason.as_dict() if self.reason else None,
                "holder": self.holder.as_dict() if self.holder else None,
                "detail": text_json(self.detail) if self.detail else None,
                "failures": [f.as_dict() for f in self.failures]}


class SuperviseEngine(Protocol):
    """What the supervisor asks of the engine (``ClusterEngine``): a typed seam, so a
    test can hand it its own."""

    config: Config

    def cluster(self, name: str) -> Cluster: ...
    def transport(self, node: Node) -> Transport: ...
    def slurm_site(self, cluster: str) -> SlurmSite: ...
    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False,
                    replan: Replan | None = None) -> ActionResult: ...
    async def stop(self, cluster: str, progress: ProgressSink, *, recipe: str | None = None,
                   hooks_for: HooksFor | None = None, disarm: bool = True) -> ActionResult: ...
