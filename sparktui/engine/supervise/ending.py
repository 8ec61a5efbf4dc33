"""What an end of supervision did, and whether the group runs after it, read afresh.

``supervise --end`` and the dashboard's ``X`` say this, never "the group keeps running"
of a group that did not run: the supervisors that ended on the mark (or still run), the
on-node containers removed, the give-ups and lost supervisors made history, then each
concerned recipe's containers as a health check read them after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparktui.engine.status import ClusterHealth
from sparktui.engine.supervise.outcomes import Disarmed
from sparktui.engine.supervise.record import SupervisionStatus
from sparktui.said import Items, Layout, Said, Text, joined, text_json


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
    unknown: Text = ""  # the nodes that did not say what they run, and why (as data)

    @property
    def missed(self) -> list[str]:
        """The nodes that could not take the mark."""
        return self.disarmed.missed

    @property
    def did_something(self) -> bool:
        d = self.disarmed
        return bool(d.ended or d.running or d.cleared or self.removed)

    def as_dict(self) -> dict[str, Any]:
        """``supervise --end --json``: codes and values, the same in every language."""
        d = self.disarmed
        return {"cluster": self.cluster, "recipe": self.recipe, "missed": d.missed,
                "unread": d.unread, "ended": [lease.as_dict() for lease in d.ended],
                "running": [lease.as_dict() for lease in d.running],
                "cleared": [{"node": c.node,
                             "record": c.record.as_dict() if c.record else None,
                             "lease": c.lease.as_dict() if c.lease else None}
                            for c in d.cleared],
                "removed": [{"node": node, "container": container}
                            for node, container in self.removed],
                "groups": [{"recipe": g.recipe, "running": g.running, "total": g.total}
                           for g in self.groups],
                "serving": self.serving,
                "unknown": text_json(self.unknown) if self.unknown else None}


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
    why = [joined(Layout.COLON, n.node, n.error or n.docker_error or "?")
           for n in health.nodes if not n.known]
    unknown: Text = Said(Layout.VALUE, {"value": Items(why, "; ")}) if why else ""
    return Ending(cluster, recipe, disarmed, removed, groups, serving, unknown)
