"""What the dashboard knows about a serve or stop it started, computed without widgets.

The engine reports each step as a :class:`Progress` event; an :class:`ActionRun` keeps
them, and :func:`progress_rows` folds them into one row per step and node: a step that
started and then finished is one row, a readiness wait is one row whose elapsed time
grows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sparktui.engine.api import ActionResult, Progress
from sparktui.engine.status import ClusterHealth, Workload
from sparktui.i18n import _

OPEN_STATES = frozenset({"started", "waiting"})


@dataclass(frozen=True)
class ProgressRow:
    step: str
    node: str | None
    state: str  # started, waiting, ok, warn, failed
    detail: str = ""


@dataclass
class ActionRun:
    """One serve or stop started from the dashboard; it lives on after its view closes."""

    id: int
    action: str  # "serve" or "stop"
    cluster: str
    recipe: str | None
    started_at: float
    url: str = ""  # serve: where the API answers once ready
    events: list[Progress] = field(default_factory=list)
    result: ActionResult | None = None
    finished_at: float | None = None

    @property
    def running(self) -> bool:
        return self.result is None

    def title(self) -> str:
        if self.action == "serve":
            return _("Serve {recipe} on {cluster}").format(recipe=self.recipe,
                                                          cluster=self.cluster)
        return _("Stop {cluster}").format(cluster=self.cluster)

    def elapsed(self, now: float) -> float:
        return max(0.0, (self.finished_at if self.finished_at is not None else now)
                   - self.started_at)

    def rows(self) -> list[ProgressRow]:
        return progress_rows(self.events)

    def outcome(self) -> str:
        """One line: what happened, for the view's status line and a notification."""
        result = self.result
        if result is None:
            return _("{action} running").format(action=self.action)
        if result.ok and self.action == "serve":
            return _("serving {recipe} on {cluster}: {url}").format(
                recipe=self.recipe, cluster=self.cluster, url=self.url)
        if result.ok:
            return _("stopped what {cluster} ran").format(cluster=self.cluster)
        return _("{action} failed on {node} at {step}").format(
            action=self.action, node=result.failed_node or "-", step=result.failed_step or "-")


def progress_rows(events: list[Progress]) -> list[ProgressRow]:
    """One row per step and node: an event closes the last open row of its step and node
    (or replaces a waiting row); otherwise it starts a new row."""
    rows: list[ProgressRow] = []
    for event in events:
        at = _open_row(rows, event)
        row = ProgressRow(event.step, event.node, event.state, event.detail)
        if at is None:
            rows.append(row)
        else:
            if not event.detail:
                row = ProgressRow(event.step, event.node, event.state, rows[at].detail)
            rows[at] = row
    return rows


def _open_row(rows: list[ProgressRow], event: Progress) -> int | None:
    for i in range(len(rows) - 1, -1, -1):
        row = rows[i]
        if row.step == event.step and row.node == event.node:
            return i if row.state in OPEN_STATES else None
    return None


_IMAGE_ID = re.compile(r"\b(sha256:[0-9a-f]{12})[0-9a-f]{20,}")


def short_detail(detail: str) -> str:
    """The first line of a step's detail, image IDs shortened: the table's cell."""
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return _IMAGE_ID.sub(r"\1…", first)


# -- what a stop would touch ----------------------------------------------------------------


def cluster_workloads(cluster: str):
    """The default scope of a stop: the cluster's own workloads (by their labels)."""
    def affects(work: Workload) -> bool:
        return work.cluster == cluster
    return affects


def needs_typed_name(health: ClusterHealth) -> bool:
    """The operator types the cluster's name when it serves, or when a node did not answer
    (what it runs is unknown, so it may be serving)."""
    return health.serving or not health.all_reachable


def running_recipe(health: ClusterHealth | None, recipe: str) -> list[str]:
    """Nodes where the last health saw this recipe's workload (serve's preflight refuses)."""
    if health is None:
        return []
    return sorted({w.node for w in health.workloads if w.recipe == recipe})
