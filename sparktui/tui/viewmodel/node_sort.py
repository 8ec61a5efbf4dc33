"""The nodes table's order: by any of its columns or the telemetry's figures (``>`` picks
the next column, ``<`` turns the order round), and its filter by name (``/``).

Pure: the dashboard's nodes pane asks for the order of its cluster's nodes; a node's
rows (one per recipe on it) stay together. Missing values (no sample yet, unreachable)
sort last either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sparktui.config.models import Node
from sparktui.engine.api import ClusterHealth, NodeHealth, TelemetryFrame
from sparktui.i18n import N_
from sparktui.tui.viewmodel.health import node_workloads

COLUMNS: tuple[str, ...] = ("rank", "node", "role", "ssh", "fabric", "container",
                            "uptime", "last log", "cpu", "mem", "gpu")
"""What ``>`` cycles through: the table's columns, then the telemetry's figures."""
LABELS = {"rank": N_("rank"), "node": N_("node"), "role": N_("role"), "ssh": N_("ssh"),
          "fabric": N_("fabric"), "container": N_("container"), "uptime": N_("uptime"),
          "last log": N_("last log"), "cpu": N_("cpu"), "mem": N_("mem"), "gpu": N_("gpu")}
HIGHEST_FIRST = frozenset({"cpu", "mem", "gpu", "uptime"})
"""Columns whose natural order is the largest first (the busiest node, the oldest)."""


@dataclass(frozen=True)
class NodeOrder:
    column: str = "rank"
    reverse: bool = False  # against the column's natural order
    filter: str = ""

    @property
    def plain(self) -> bool:
        """The table as it always was: by rank, everything shown (no marker)."""
        return self.column == "rank" and not self.reverse

    def next(self, step: int = 1) -> NodeOrder:
        at = COLUMNS.index(self.column) if self.column in COLUMNS else 0
        return NodeOrder(COLUMNS[(at + step) % len(COLUMNS)], False, self.filter)

    def turned(self) -> NodeOrder:
        return NodeOrder(self.column, not self.reverse, self.filter)

    def filtered(self, text: str) -> NodeOrder:
        return NodeOrder(self.column, self.reverse, text)

    def descending(self) -> bool:
        return (self.column in HIGHEST_FIRST) != self.reverse

    def marker(self) -> str:
        """The header's arrow: ▼ largest first, ▲ smallest first."""
        return "▼" if self.descending() else "▲"


def _value(column: str, node: Node, health: NodeHealth | None,
           frame: TelemetryFrame | None, last_lines: dict[str, str]) -> Any:
    works = node_workloads(health) if health is not None else []
    first = works[0] if works else None
    figures = frame.node(node.name) if frame is not None else None
    pick: dict[str, Callable[[], Any]] = {
        "rank": lambda: node.rank,
        "node": lambda: node.name.lower(),
        "role": lambda: first.role if first else None,
        "ssh": lambda: (node.ssh_ip, node.ssh_port),
        "fabric": lambda: node.fabric_ip,
        "container": lambda: (first.state, first.recipe) if first else None,
        # the earlier the start, the longer the uptime (ISO times sort as times)
        "uptime": lambda: _negated(first.started_at) if first and first.started_at else None,
        "last log": lambda: last_lines.get(node.name) or None,
        "cpu": lambda: figures.cpu_pct if figures else None,
        "mem": lambda: figures.mem_pct if figures else None,
        "gpu": lambda: figures.gpu_util if figures else None,
    }
    return pick[column]()


def _negated(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def ordered(nodes: list[Node], order: NodeOrder, health: ClusterHealth | None,
            frame: TelemetryFrame | None, last_lines: dict[str, str]) -> list[Node]:
    """``nodes`` (ranked) filtered by name and sorted by ``order``; ties keep the rank."""
    needle = order.filter.strip().lower()
    shown = [n for n in nodes if needle in n.name.lower()]
    if order.plain:
        return shown
    rows = {n.node: n for n in health.nodes} if health is not None else {}
    valued = [(n, _value(order.column, n, rows.get(n.name), frame, last_lines)) for n in shown]
    known = sorted((p for p in valued if p[1] is not None), key=lambda p: p[1],
                   reverse=order.descending())
    return [n for n, _v in known] + [n for n, v in valued if v is None]
