"""Summaries of a ``ClusterHealth`` for the header and the nodes pane, computed without
widgets: what the cluster serves, the workload a node's row shows, uptimes, plain log
text. Plain functions, testable without Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sparktui.engine.status import ClusterHealth, NodeHealth, Workload


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
