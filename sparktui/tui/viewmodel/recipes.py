"""The recipes pane's and the plan pane's model, computed without widgets: one entry per
recipe folder (loaded, or the problems that stop it) and the plan preview of a recipe on
a cluster. Plain functions, testable without Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sparktui.config.discovery import list_recipes
from sparktui.config.image_record import last_digest
from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.loader import load_recipe
from sparktui.config.models import Cluster, Node
from sparktui.errors import Problem, SparkError
from sparktui.i18n import N_, _, ngettext
from sparktui.plan.anywhere import Replan, replan_for
from sparktui.plan.build import build_plan, declared_api_port
from sparktui.plan.cluster import total_nodes_needed
from sparktui.plan.image_pin import remembered
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render import render


@dataclass(frozen=True)
class RecipeFacts:
    """What the plan of a recipe runs on a cluster: the recipes pane's line and the
    ``recipes`` command's row."""

    engine: str | None  # None: services only
    nodes: int
    """Every node the plan takes: the engine's (``required_nodes``, else tensor x pipeline
    parallel over the cluster's GPUs per node), the service pools', a dedicated one."""
    port: int | None  # the API's; None: services only


@dataclass(frozen=True)
class RecipeEntry:
    """One folder of the recipes directory: loaded, or the problems that stop it."""

    name: str
    path: Path
    loaded: LoadedRecipe | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.loaded is not None

    @property
    def folder(self) -> Path:
        """The recipe's own folder (``path`` is its recipe.toml)."""
        return self.path.parent

    def facts(self, cluster: Cluster | None) -> RecipeFacts | None:
        """Counted as the plan counts (plan.cluster.total_nodes_needed), so the line never
        says fewer nodes than the plan, or a misfit, asks for; None: it does not load."""
        if self.loaded is None:
            return None
        rec = self.loaded.recipe
        nodes = total_nodes_needed(rec, cluster if cluster is not None else _one_gpu_cluster())
        if not rec.has_engine:
            return RecipeFacts(None, nodes, None)
        return RecipeFacts(rec.engine, nodes, declared_api_port(rec))

    def summary(self, cluster: Cluster | None = None) -> str:
        """One short line under the name: engine, nodes, port (on ``cluster``)."""
        facts = self.facts(cluster)
        if facts is None:
            return short_problem(self.problems[0]) if self.problems else _("broken")
        nodes = ngettext("{n} node", "{n} nodes", facts.nodes).format(n=facts.nodes)
        if facts.engine is None:
            return _("services only") + " · " + nodes
        return f"{facts.engine} · {nodes} · :{facts.port}"


def _one_gpu_cluster() -> Cluster:
    """No cluster to count on (a config without any): one GPU a node, the default."""
    return Cluster(name="any", nodes=[Node(name="any", ssh_ip="127.0.0.1", rank=0)])


def misfit(entry: RecipeEntry, cluster: Cluster | None) -> str | None:
    """Why the recipe cannot run on ``cluster`` for its size ("needs 2 nodes, cluster has
    1"), the check ``plan`` makes first; None: it fits (or nothing to say)."""
    if entry.loaded is None or cluster is None:
        return None
    need, have = total_nodes_needed(entry.loaded.recipe, cluster), len(cluster.nodes)
    if have >= need:
        return None
    return _("needs {need_nodes}, cluster has {have}").format(
        need_nodes=ngettext("{n} node", "{n} nodes", need).format(n=need), have=have)


def fit_first(entries: list[RecipeEntry], cluster: Cluster | None
              ) -> tuple[list[RecipeEntry], dict[str, str]]:
    """The entries that fit ``cluster`` first (in their order), then the others, with why."""
    why = {e.name: reason for e in entries if (reason := misfit(e, cluster)) is not None}
    return sorted(entries, key=lambda e: e.name in why), why


CLUSTER_EXAMPLE = """\
[[clusters]]
name = "spark"

[[clusters.nodes]]
name = "spark1"
ssh_ip = "10.0.0.11"
rank = 0"""
"""What a config without clusters is told to add (a test loads it); narrow, for 80x24."""
NO_CLUSTERS_SHORT = N_("No [[clusters]] in the config yet: add one (the plan pane shows how).")


def no_clusters_text(config: LoadedConfig) -> str:
    """Say what to add, and where, instead of "glm on " and an empty pane."""
    where = str(config.source.path) if config.source.path is not None else "config.toml"
    return _("No [[clusters]] in {path}. Add one, a table per cluster and per node, for "
             "example:").format(path=where) + "\n\n" + CLUSTER_EXAMPLE


@dataclass(frozen=True)
class PlanPreview:
    """The selected recipe's plan on the cluster in focus, or why there is none.

    The plan is built once and serves the pane, the palette's "does it fit" and the
    action itself; its text is rendered only when a pane shows it.
    """

    plan: LaunchPlan | None
    why: str = ""
    replan: Replan | None = None
    """For a Slurm cluster's any N nodes: the plan resolved on the job's (the action's)."""

    @property
    def ok(self) -> bool:
        return self.plan is not None

    @cached_property
    def text(self) -> str:
        return render(self.plan, "text") if self.plan is not None else self.why


def scan_recipes(directory: Path) -> tuple[list[RecipeEntry], list[Problem]]:
    """Every recipe in ``directory``; a broken one is an entry with its problems."""
    try:
        paths = list_recipes(directory)
    except SparkError as exc:
        return [], exc.problems
    entries = []
    for name, path in paths.items():
        try:
            entries.append(RecipeEntry(name, path, load_recipe(path)))
        except SparkError as exc:
            entries.append(RecipeEntry(name, path, None, exc.problems))
    return entries, []


def plan_preview(config: LoadedConfig, entry: RecipeEntry, cluster: str | None) -> PlanPreview:
    """``render(plan, "text")`` for the recipe on the cluster, or why it cannot run there."""
    if not config.config.clusters:
        return PlanPreview(None, no_clusters_text(config))
    if entry.loaded is None:
        return PlanPreview(None, _("{recipe} does not load:").format(recipe=entry.name) + "\n"
                           + render_problems(entry.problems))
    try:
        plan = remembered(build_plan(config, entry.loaded, cluster), last_digest)
    except SparkError as exc:
        return PlanPreview(None, _("No plan for {recipe} on {cluster}:").format(
            recipe=entry.name, cluster=cluster) + "\n" + render_problems(exc.problems))
    return PlanPreview(plan, replan=replan_for(config, entry.loaded, plan))


class KeptPreview:
    """The last preview, built again only when the config, the recipe or the cluster in
    focus changes (a reload makes new config and recipe objects)."""

    def __init__(self) -> None:
        self._kept: tuple[LoadedConfig, RecipeEntry, str | None, PlanPreview] | None = None

    def get(self, config: LoadedConfig, entry: RecipeEntry, cluster: str | None) -> PlanPreview:
        kept = self._kept
        if kept is not None and kept[0] is config and kept[1] is entry and kept[2] == cluster:
            return kept[3]
        preview = plan_preview(config, entry, cluster)
        self._kept = (config, entry, cluster, preview)
        return preview


def short_problem(problem: Problem) -> str:
    """A problem without the absolute path: ``recipe.toml:3: engine: must be ...``."""
    where = problem.file.name if problem.file is not None else ""
    if where and problem.line:
        where += f":{problem.line}"
    parts = [p for p in (where, problem.field) if p]
    return ": ".join([*parts, problem.message()])


def render_problems(problems: list[Problem]) -> str:
    return "\n".join(short_problem(p) for p in problems)
