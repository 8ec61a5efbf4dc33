"""What the dashboard knows about a serve, stop or power action it started, computed
without widgets.

The engine reports each step as a :class:`Progress` event; an :class:`ActionRun` keeps
them, and :func:`progress_rows` folds them into one row per step and node: a step that
started and then finished is one row, a readiness wait is one row whose elapsed time
grows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sparktui.engine.api import (
    ActionResult,
    ClusterHealth,
    Progress,
    Step,
    Workload,
    pull_would_fix,
    share_holders,
    taken,
)
from sparktui.i18n import N_, _, ngettext
from sparktui.labels import failed_where
from sparktui.plan.fit.probe import question_for
from sparktui.plan.fit.shares import node_shares, share_line
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan
from sparktui.tui.actions import Action, run_noun
from sparktui.tui.viewmodel.transfers import TransferBoard

if TYPE_CHECKING:
    from sparktui.tui.screens.power_menu import PowerChoice

TITLES = {Action.SERVE: N_("Serve {recipe} on {cluster}"),
          Action.SUPERVISE: N_("Supervise {recipe} on {cluster}"),
          Action.END_SUPERVISION: N_("End supervision of {cluster}"),
          Action.RESTART: N_("Restart {recipe} on {cluster}"),
          Action.BENCH: N_("Benchmark {recipe} on {cluster}"),
          Action.PULL: N_("Pull {recipe} onto {cluster}"),
          Action.STOP: N_("Stop {cluster}")}
"""A run's progress view title (power has its own: the plan it set out to do)."""


OPEN_STATES = frozenset({"started", "waiting"})


@dataclass(frozen=True)
class ProgressRow:
    step: str
    node: str | None
    state: str  # started, waiting, ok, warn, failed
    detail: str = ""


@dataclass
class ActionRun:
    """One serve, stop or power action started from the dashboard; it lives on after its
    view closes."""

    id: int
    action: Action  # serve, stop, restart, bench, power, supervise or end_supervision
    cluster: str
    recipe: str | None
    started_at: float
    url: str = ""  # serve: where the API answers once ready
    events: list[Progress] = field(default_factory=list)
    result: ActionResult | None = None
    finished_at: float | None = None
    power: PowerPlan | None = None  # power: what it set out to do
    transfers: TransferBoard = field(default_factory=TransferBoard)  # pull: bytes per node
    plan: LaunchPlan | None = None  # serve: the plan it ran (its refusal may offer a pull)

    @property
    def offers_pull(self) -> bool:
        """A serve refused because its image or model is missing on a node: ``P`` pulls."""
        return (self.action is Action.SERVE and self.plan is not None
                and self.result is not None and pull_would_fix(self.result))

    @property
    def running(self) -> bool:
        return self.result is None

    @property
    def label(self) -> str:
        return run_noun(self.action)

    def title(self) -> str:
        if self.power is not None:
            return power_title(self.power)
        if self.action is Action.STOP and self.recipe:
            return _("Stop {recipe} on {cluster}").format(recipe=self.recipe,
                                                         cluster=self.cluster)
        return _(TITLES.get(self.action, TITLES[Action.STOP])).format(recipe=self.recipe,
                                                                cluster=self.cluster)

    def elapsed(self, now: float) -> float:
        return max(0.0, (self.finished_at if self.finished_at is not None else now)
                   - self.started_at)

    def rows(self) -> list[ProgressRow]:
        return progress_rows(self.events)

    def outcome(self) -> str:
        """One line: what happened, for the view's status line and a notification."""
        result = self.result
        if result is None:
            return _("{action} running").format(action=self.label)
        if self.power is not None:
            return power_outcome(self.power, result)
        if result.ok and self.action is Action.SERVE:
            return _("serving {recipe} on {cluster}: {url}").format(
                recipe=self.recipe, cluster=self.cluster, url=self.url)
        if result.ok and self.action is Action.SUPERVISE:
            return _("{recipe} on {cluster} is supervised from its head ({container})").format(
                recipe=self.recipe, cluster=self.cluster, container=result.detail)
        if result.ok and self.action is Action.END_SUPERVISION:
            return str(result.detail)  # what it did, and whether the group runs (read after)
        if self.action is Action.RESTART:
            return self._restart_outcome(result)
        if result.ok and self.action is Action.BENCH:
            return _("benchmark of {recipe} on {cluster} kept as {path}").format(
                recipe=self.recipe, cluster=self.cluster, path=result.detail)
        if result.ok and self.action is Action.PULL:
            return _("{recipe}'s image and model are on every node of {cluster}").format(
                recipe=self.recipe, cluster=self.cluster)
        restores = [e.node or "-" for e in result.warnings if e.step == Step.AFTER_STOP]
        if result.ok and restores:  # a restore that did not finish is never "stopped" alone
            return _("stopped what {cluster} ran, but after_stop did not finish on {nodes}: "
                     "restore them by hand").format(cluster=self.cluster,
                                                    nodes=", ".join(dict.fromkeys(restores)))
        if result.ok and self.recipe:
            return _("stopped {recipe} on {cluster}").format(recipe=self.recipe,
                                                            cluster=self.cluster)
        if result.ok:
            return _("stopped what {cluster} ran").format(cluster=self.cluster)
        return _("{action} failed {where}").format(
            action=self.label, where=failed_where(result.failed_node, result.failed_step))


    def _restart_outcome(self, result: ActionResult) -> str:
        if result.ok:
            return _("restarted {recipe} on {cluster}: {url}").format(
                recipe=self.recipe, cluster=self.cluster, url=self.url)
        where = failed_where(result.failed_node, result.failed_step)
        if result.failed_step in (Step.STOP, Step.AFTER_STOP):
            return _("restart failed: the stop failed {where}; nothing was served").format(
                where=where)
        return _("{recipe} is DOWN on {cluster}: it was stopped, then serve failed "
                 "{where}").format(recipe=self.recipe, cluster=self.cluster, where=where)


def progress_rows(events: list[Progress]) -> list[ProgressRow]:
    """One row per step and node: an event closes the last open row of its step and node
    (or replaces a waiting row); otherwise it starts a new row."""
    rows: list[ProgressRow] = []
    for event in events:
        at = _open_row(rows, event)
        who = event.node or event.entity  # power: an extra entity has no node
        row = ProgressRow(event.step, who, event.state, str(event.detail))
        if at is None:
            rows.append(row)
        else:
            if not event.detail:
                row = ProgressRow(event.step, who, event.state, rows[at].detail)
            rows[at] = row
    return rows


def _open_row(rows: list[ProgressRow], event: Progress) -> int | None:
    for i in range(len(rows) - 1, -1, -1):
        row = rows[i]
        if row.step == event.step and row.node == (event.node or event.entity):
            return i if row.state in OPEN_STATES else None
    return None


_IMAGE_ID = re.compile(r"\b(sha256:[0-9a-f]{12})[0-9a-f]{20,}")


def short_detail(detail: str) -> str:
    """The first line of a step's detail, image IDs shortened: the table's cell."""
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return _IMAGE_ID.sub(r"\1…", first)


# -- what a stop would touch ----------------------------------------------------------------


def cluster_workloads(cluster: str):
    """The default scope of a stop: the cluster's own workloads (by their labels); never a
    foreign one (stop leaves it alone)."""
    def affects(work: Workload) -> bool:
        return work.ours and work.cluster == cluster
    return affects


def needs_typed_name(health: ClusterHealth) -> bool:
    """The operator types the cluster's name when it serves, or when a node (or its
    docker, or a head's API) did not answer: it may be serving. The busiest cluster is
    the one whose probes time out."""
    return health.serving or bool(health.unread)


def running_recipe(health: ClusterHealth | None, recipe: str) -> list[str]:
    """Nodes where the last health saw this recipe's workload (serve's preflight refuses)."""
    if health is None:
        return []
    return sorted({w.node for w in health.workloads if w.recipe == recipe})


def shares_seen(health: ClusterHealth | None, plan: LaunchPlan) -> list[str]:
    """The nodes of ``plan`` whose engines, as the last health saw them, leave no room for
    its share (serve's preflight checks again, on the nodes, before anything starts)."""
    settings = question_for(plan).settings
    if health is None or settings is None:
        return []
    lines = []
    for node in plan.nodes:
        row = next((n for n in health.nodes if n.node == node.name), None)
        holders = share_holders(row.workloads if row is not None else [], plan.recipe)
        shares = node_shares(node.name, plan.recipe, settings.share, holders)
        if not shares.ok:
            lines.append(str(share_line(shares)))
    return lines


def names_seen(health: ClusterHealth | None, plan: LaunchPlan) -> list[str]:
    """Another recipe serves one of ``plan``'s model names behind the router, as the last
    health saw it: serve's preflight refuses (it asks again before anything starts, so
    this only warns; a restart, which stops first, is refused in its confirmation)."""
    why = taken(health, plan) if health is not None else None
    return [_("Preflight will refuse: {why}").format(why=why)] if why is not None else []


# -- power ----------------------------------------------------------------------------------


def power_title(plan: PowerPlan | PowerChoice) -> str:
    """``Power on a`` / ``Power off a`` / ``Switch from a to b``: a plan's or a menu choice's."""
    if plan.action == "switch":
        return _("Switch from {source} to {target}").format(source=plan.source,
                                                            target=plan.target)
    if plan.action == "on":
        return _("Power on {cluster}").format(cluster=plan.target)
    return _("Power off {cluster}").format(cluster=plan.source)


def power_outcome(plan: PowerPlan, result: ActionResult) -> str:
    """One line: everything done, part of it, or nothing (and why)."""
    title = power_title(plan)
    if result.ok:
        return _("{title}: everything was done").format(title=title)
    if result.done:
        return ngettext("{title}: partly done, {n} of {total} steps not done",
                        "{title}: partly done, {n} of {total} steps not done",
                        len(result.outcomes)).format(
            title=title, n=len(result.not_done), total=len(result.outcomes))
    return _("{title}: nothing was done").format(title=title)
