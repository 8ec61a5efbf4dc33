"""Summaries of a ``ClusterHealth`` for the header and the nodes pane, computed without
widgets: what the cluster serves, the workload a node's row shows, uptimes, plain log
text. Plain functions, testable without Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sparktui.engine.api import ClusterHealth, NodeHealth, Workload


@dataclass(frozen=True)
class Serving:
    """The header's view of what the cluster serves."""

    state: str  # serving, starting, idle, stopped, unknown (a node did not say what runs)
    recipe: str = ""
    model: str = ""
    port: int | None = None
    running: float | None = None
    waiting: float | None = None
    others: int = 0  # more recipes serving on the cluster (their requests are counted)
    services_only: bool = False  # a recipe of services only, all ready: no requests to count


def _total(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def serving_of(health: ClusterHealth) -> Serving:
    live = []
    for node in health.nodes:
        heads = [w for w in node.workloads if w.role == "head"]
        for eng in node.engines:
            if heads and (eng.ready or eng.busy):
                work = next((w for w in heads if w.recipe == eng.recipe), heads[0])
                live.append((eng, work))
    if live:
        eng, work = live[0]
        model = eng.models[0] if eng.models else work.recipe
        return Serving("serving", work.recipe, model, eng.port or work.port,
                       _total([e.running for e, _w in live]),
                       _total([e.waiting for e, _w in live]), len(live) - 1)
    ready = health.services_ready
    if ready:
        return Serving("serving", ready[0], others=len(ready) - 1, services_only=True)
    running = [w for w in health.workloads if w.running]
    if any(e.timed_out for e in health.engines):  # too busy to answer: may be serving
        return Serving("unknown")
    if running:
        head = next((w for w in running if w.role == "head"), running[0])
        return Serving("starting", head.recipe, "", head.port)
    if health.workloads:
        return Serving("stopped", health.workloads[0].recipe)
    return Serving("idle" if health.all_known else "unknown")  # never idle beside a blind node


ENGINE_ROLES = ("head", "worker")


def main_workload(node: NodeHealth) -> Workload | None:
    """The workload to show in a node's row: the engine's (even one that crashed) before
    a service next to it, then a running one before one that has exited."""
    if not node.workloads:
        return None
    ranked = sorted(node.workloads, key=lambda w: (w.role not in ENGINE_ROLES, not w.running))
    return ranked[0]


def node_workloads(node: NodeHealth) -> list[Workload]:
    """One per recipe on the node, for the nodes pane's rows: ``main_workload`` first,
    then each other recipe's engine member (running before exited), by recipe name."""
    main = main_workload(node)
    if main is None:
        return []
    others: dict[str, Workload] = {}
    for w in sorted(node.workloads, key=lambda w: (w.recipe, not w.running)):
        if w.role in ENGINE_ROLES and w.recipe != main.recipe:
            others.setdefault(w.recipe, w)
    return [main, *others.values()]


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
