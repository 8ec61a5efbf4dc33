"""What the dashboard shows, computed without widgets: recipe entries, plan previews,
summaries of a ``ClusterHealth``. Plain functions, testable without Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sparktui.config.discovery import list_recipes
from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.loader import load_recipe
from sparktui.engine.status import ClusterHealth, NodeHealth, Workload
from sparktui.errors import Problem, SparkError
from sparktui.i18n import _, ngettext
from sparktui.plan.build import build_plan
from sparktui.plan.render import render
from sparktui.plan.services.placement import extra_nodes


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

    def summary(self) -> str:
        """One short line under the name: engine, nodes, port."""
        if self.loaded is None:
            return short_problem(self.problems[0]) if self.problems else _("broken")
        rec = self.loaded.recipe
        if not rec.has_engine:  # its pools and dedicated node, at least the one it runs on
            nodes = max(1, extra_nodes(rec))
            return _("services only") + " · " + ngettext("{n} node", "{n} nodes", nodes).format(
                n=nodes)
        nodes = rec.required_nodes or 1
        return f"{rec.engine} · " + ngettext("{n} node", "{n} nodes", nodes).format(n=nodes) + \
            f" · :{rec.port}"


@dataclass(frozen=True)
class PlanPreview:
    text: str
    ok: bool


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
    if entry.loaded is None:
        return PlanPreview(_("{recipe} does not load:").format(recipe=entry.name) + "\n"
                           + render_problems(entry.problems), ok=False)
    try:
        plan = build_plan(config, entry.loaded, cluster)
    except SparkError as exc:
        return PlanPreview(_("No plan for {recipe} on {cluster}:").format(
            recipe=entry.name, cluster=cluster) + "\n" + render_problems(exc.problems), ok=False)
    return PlanPreview(render(plan, "text"), ok=True)


def short_problem(problem: Problem) -> str:
    """A problem without the absolute path: ``recipe.toml:3: engine: must be ...``."""
    where = problem.file.name if problem.file is not None else ""
    if where and problem.line:
        where += f":{problem.line}"
    parts = [p for p in (where, problem.field) if p]
    return ": ".join([*parts, problem.message()])


def render_problems(problems: list[Problem]) -> str:
    return "\n".join(short_problem(p) for p in problems)


# -- health summaries ------------------------------------------------------------------


@dataclass(frozen=True)
class Serving:
    """The header's view of what the cluster serves."""

    state: str  # serving, starting, idle, stopped
    recipe: str = ""
    model: str = ""
    port: int | None = None
    running: float | None = None
    waiting: float | None = None


def serving_of(health: ClusterHealth) -> Serving:
    heads = [(n, w) for n in health.nodes for w in n.workloads if w.role == "head"]
    for node, work in heads:
        eng = node.engine
        if eng is not None and (eng.ready or eng.busy):
            model = eng.models[0] if eng.models else work.recipe
            return Serving("serving", work.recipe, model, work.port, eng.running, eng.waiting)
    running = [w for w in health.workloads if w.running]
    if running:
        head = next((w for w in running if w.role == "head"), running[0])
        return Serving("starting", head.recipe, "", head.port)
    if health.workloads:
        return Serving("stopped", health.workloads[0].recipe)
    return Serving("idle")


ENGINE_ROLES = ("head", "worker")


def main_workload(node: NodeHealth) -> Workload | None:
    """The workload to show in a node's row: the engine's (even one that crashed) before
    a service next to it, then a running one before one that has exited."""
    if not node.workloads:
        return None
    ranked = sorted(node.workloads, key=lambda w: (w.role not in ENGINE_ROLES, not w.running))
    return ranked[0]


def uptime(work: Workload, now: float) -> str:
    """``3d 4h``, ``5h 12m``, ``7m``: from docker's StartedAt, else its Status text."""
    if not work.running:
        return ""
    started = _parse_time(work.started_at) if work.started_at else None
    if started is None:
        status = work.status
        return status[3:] if status.startswith("Up ") else status
    return human_duration(max(0.0, now - started))


def human_duration(seconds: float) -> str:
    """An age or uptime in the active language: "3d 4h", "10m", "42s"."""
    from sparktui.fmt import format_duration

    return format_duration(seconds)


_FRACTION = re.compile(r"\.(\d+)")


def _parse_time(text: str) -> float | None:
    """Docker writes nanoseconds and a Z; Python wants at most microseconds."""
    cleaned = _FRACTION.sub(lambda m: "." + m.group(1)[:6], text.strip()).replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(cleaned).timestamp()
    except ValueError:
        return None


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    """Engines color their logs (VLLM_LOGGING_COLOR=1); the dashboard shows plain text."""
    return _ANSI.sub("", text)
