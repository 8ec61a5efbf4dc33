"""What an end of supervision did, and whether the group runs after it, read afresh.

``supervise --end`` and the dashboard's ``X`` say this, never "the group keeps running"
of a group that did not run: the supervisors that ended on the mark (or still run), the
on-node containers removed, the give-ups and lost supervisors made history, then each
concerned recipe's containers as a health check read them after.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparktui.engine.status import ClusterHealth
from sparktui.engine.supervise.outcomes import Disarmed
from sparktui.engine.supervise.record import SupervisionStatus


@dataclass(frozen=True)
class Group:
    """A concerned recipe's containers on the cluster after the end: ``running`` of
    ``total``."""

    recipe: str
    running: int
    total: int


@dataclass(frozen=True)
class Ending:
    cluster: str
    recipe: str | None  # asked for: only this recipe's supervision ends
    disarmed: Disarmed
    removed: list[tuple[str, str]] = field(default_factory=list)  # (node, container)
    groups: list[Group] = field(default_factory=list)  # of the recipes it concerned
    serving: list[str] = field(default_factory=list)  # recipes with a running container
    unknown: str = ""  # the nodes that did not say what they run, and why

    @property
    def missed(self) -> list[str]:
        """The nodes that could not take the mark."""
        return self.disarmed.missed

    @property
    def did_something(self) -> bool:
        d = self.disarmed
        return bool(d.ended or d.running or d.cleared or self.removed)


ALERTING = ("supervised", "lost", "gave_up")


def ending(cluster: str, recipe: str | None, before: SupervisionStatus, disarmed: Disarmed,
           removed: list[tuple[str, str]], health: ClusterHealth) -> Ending:
    """``before``: the cluster's supervision as read before the mark (which recipe it
    supervised); ``health``: read after everything was done."""
    concerned = [recipe] if recipe else []
    concerned += [lease.recipe for lease in disarmed.ended + disarmed.running]
    concerned += [c.record.recipe for c in disarmed.cleared if c.record is not None]
    concerned += [c.lease.recipe for c in disarmed.cleared if c.lease is not None]
    if before.state in ALERTING:
        concerned += [x.recipe for x in (before.lease, before.record) if x is not None]
    wanted = [r for r in dict.fromkeys(concerned) if r and (recipe is None or r == recipe)]
    ours = [w for w in health.workloads if w.cluster == cluster and w.ours]
    groups = [Group(r, sum(1 for w in ours if w.recipe == r and w.running),
                    sum(1 for w in ours if w.recipe == r)) for r in wanted]
    serving = sorted({w.recipe for w in ours if w.running and w.recipe})
    unknown = "; ".join(f"{n.node}: {n.error or n.docker_error or '?'}"
                        for n in health.nodes if not n.known)
    return Ending(cluster, recipe, disarmed, removed, groups, serving, unknown)
