"""Thresholds over telemetry: which alerts fire, and when they clear. Pure, no I/O.

``AlertRules.evaluate`` turns one sample (plus the history and the last health) into
the set of conditions that hold now; ``AlertBook`` keeps each alert's firing time,
marks it cleared when its condition stops, and forgets cleared ones after a while.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sparktui.engine.status import ClusterHealth
from sparktui.engine.telemetry.figures import (
    KV_SHARE,
    MEMORY_PCT,
    Alert,
    EngineFigures,
    NodeFigures,
)
from sparktui.engine.telemetry.history import History
from sparktui.i18n import N_
from sparktui.said import Code, Text, said

SWAP_GROWTH_BYTES = 64 * 1024 * 1024  # over SWAP_WINDOW: less is noise
SWAP_WINDOW = 60.0
STALL_SECONDS = 300.0
KERNEL_HOLD = 600.0  # a new OOM line stays an alert this long
KEEP_CLEARED = 900.0
HYSTERESIS = 0.02  # relative: memory at 90% fires, it clears below 88.2%


class Gone(Code):
    """Why a worker is not seen running (else docker's own status of it)."""

    UNREACHABLE = N_("unreachable")
    NO_CONTAINER = N_("no container")


@dataclass(frozen=True)
class Condition:
    kind: str
    node: str | None
    value: float | None = None
    detail: Text = ""
    recipe: str = ""  # an engine's: two recipes served from one node alert apart

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.node or '-'}" + (f":{self.recipe}" if self.recipe else "")


class AlertBook:
    """Alerts with their times: fire once, stay while the condition holds, then clear."""

    def __init__(self, keep_cleared: float = KEEP_CLEARED) -> None:
        self.keep_cleared = keep_cleared
        self._alerts: dict[str, Alert] = {}

    def update(self, now: float, conditions: list[Condition]) -> list[Alert]:
        live = {c.key: c for c in conditions}
        for key, cond in live.items():
            old = self._alerts.get(key)
            if old is None or not old.active:
                self._alerts[key] = Alert(key, cond.kind, cond.node, now, cond.value, cond.detail)
            else:
                self._alerts[key] = replace(old, value=cond.value, detail=cond.detail)
        for key, alert in list(self._alerts.items()):
            if key not in live and alert.active:
                self._alerts[key] = replace(alert, cleared=now)
            elif alert.cleared is not None and now - alert.cleared > self.keep_cleared:
                del self._alerts[key]
        return self.alerts()

    def alerts(self) -> list[Alert]:
        """Active first (oldest first), then cleared (newest first)."""
        active = sorted((a for a in self._alerts.values() if a.active), key=lambda a: a.since)
        cleared = sorted((a for a in self._alerts.values() if not a.active),
                         key=lambda a: -(a.cleared or 0))
        return active + cleared


@dataclass
class AlertRules:
    memory_pct: float = MEMORY_PCT
    kv_share: float = KV_SHARE
    stall_seconds: float = STALL_SECONDS
    swap_growth: float = SWAP_GROWTH_BYTES
    _stall_since: dict[str, float] = field(default_factory=dict)  # recipe -> since
    _workers: dict[str, set[str]] = field(default_factory=dict)  # recipe -> worker nodes
    _kernel_seen: dict[str, set[str]] = field(default_factory=dict)
    _kernel_new: dict[str, tuple[float, str]] = field(default_factory=dict)
    _active: set[str] = field(default_factory=set)

    def evaluate(self, now: float, nodes: list[NodeFigures],
                 engines: list[EngineFigures] | EngineFigures | None,
                 history: History, health: ClusterHealth | None) -> list[Condition]:
        found: list[Condition] = []
        for n in nodes:
            found += self._node(now, n, history)
        if isinstance(engines, EngineFigures):
            engines = [engines]
        for engine in engines or []:
            found += self._engine(now, engine)
        serving = {e.recipe for e in engines or []}
        for recipe in [r for r in self._stall_since if r not in serving]:
            del self._stall_since[recipe]
        if health is not None:
            found += self._workers_gone(health)
        self._active = {c.key for c in found}
        return found

    def _hot(self, key: str, value: float, limit: float) -> bool:
        """Above ``limit`` to fire; once firing, only clearly below it clears."""
        if key in self._active:
            return value > limit * (1 - HYSTERESIS)
        return value > limit

    def _node(self, now: float, n: NodeFigures, history: History) -> list[Condition]:
        found = []
        if n.mem_pct is not None and self._hot(f"memory:{n.node}", n.mem_pct, self.memory_pct):
            found.append(Condition("memory", n.node, n.mem_pct))
        ring = history.ring(f"{n.node}.swap_used")
        if ring is not None and n.swap_used is not None:
            window = [v for _, v in ring.since(now - SWAP_WINDOW) if v is not None]
            if window and n.swap_used - min(window) > self.swap_growth:
                found.append(Condition("swap", n.node, n.swap_used - min(window)))
        seen = self._kernel_seen.get(n.node)
        if seen is None:  # lines already there at the first sample are old news
            self._kernel_seen[n.node] = set(n.kernel)
        else:
            fresh = [line for line in n.kernel if line not in seen]
            seen.update(fresh)
            if fresh:
                self._kernel_new[n.node] = (now, fresh[-1])
        if (new := self._kernel_new.get(n.node)) and now - new[0] <= KERNEL_HOLD:
            found.append(Condition("kernel_oom", n.node, None, new[1]))
        return found

    def _engine(self, now: float, e: EngineFigures) -> list[Condition]:
        found = []
        kv = Condition("kv", e.node, e.kv_cache, e.recipe, e.recipe)
        if e.kv_cache is not None and self._hot(kv.key, e.kv_cache, self.kv_share):
            found.append(kv)
        stalled = (e.waiting or 0) > 0 and e.error is None and not (e.gen_tps or 0) > 0
        if not stalled:
            self._stall_since.pop(e.recipe, None)
        else:
            self._stall_since.setdefault(e.recipe, now)
        since = self._stall_since.get(e.recipe)
        if since is not None and now - since >= self.stall_seconds:
            found.append(Condition("stalled", e.node, now - since, e.recipe, e.recipe))
        return found

    def _workers_gone(self, health: ClusterHealth) -> list[Condition]:
        found = []
        heads = {w.recipe for w in health.workloads if w.role == "head" and w.running}
        by_node = {n.node: n for n in health.nodes}
        for recipe in heads:
            workers = {w.node: w for w in health.workloads
                       if w.recipe == recipe and w.role != "head"}
            seen = self._workers.setdefault(recipe, set())
            seen.update(n for n, w in workers.items() if w.running)
            for node in sorted(seen):
                w = workers.get(node)
                if w is not None and w.running:
                    continue
                row = by_node.get(node)
                detail = (w.status if w is not None else
                          said(Gone.UNREACHABLE) if row is not None and not row.reachable
                          else said(Gone.NO_CONTAINER))
                found.append(Condition("worker_gone", node, None, detail))
        for recipe in list(self._workers):
            if recipe not in heads:
                del self._workers[recipe]  # the head went too: a stop, not a failure
        return found
