"""Telemetry values: what one sample of a cluster says, as small immutable records.

The sampler (``sparktui.engine.telemetry.sampler``) makes them; the dashboard, ``top --json``
and ``health --json`` show them. Sizes are bytes, rates per second, times seconds,
shares 0..100 for node figures (as operators read ``top``) and 0..1 for the KV cache
(as the engines publish it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class NodeFigures:
    node: str
    reachable: bool = True
    error: str | None = None
    cpu_pct: float | None = None  # busy share of every core since the last sample
    mem_total: float | None = None
    mem_used: float | None = None  # used by processes (GPU allocations included on GB10)
    mem_cache: float | None = None  # page cache and reclaimable slabs
    mem_available: float | None = None
    mem_pct: float | None = None  # (total - available) / total
    swap_total: float | None = None
    swap_used: float | None = None
    gpu_util: float | None = None
    gpu_power: float | None = None  # W
    gpu_temp: float | None = None  # °C
    gpu_mem_used: float | None = None
    disk_path: str | None = None  # the HF cache folder
    disk_free: float | None = None
    disk_total: float | None = None
    kernel: list[str] = field(default_factory=list)  # newest OOM / NV_ERR_NO_MEMORY lines
    sources: dict[str, str | None] = field(default_factory=dict)  # group -> its tool, or None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EngineFigures:
    node: str
    port: int
    running: float | None = None
    waiting: float | None = None
    kv_cache: float | None = None  # 0..1
    prompt_tps: float | None = None
    gen_tps: float | None = None
    ttft_p50: float | None = None  # over the last minute
    ttft_p95: float | None = None
    tpot_p50: float | None = None
    tpot_p95: float | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Alert:
    """A threshold crossed: ``since`` when it fired, ``cleared`` when it stopped (or None)."""

    key: str  # stable identity: kind + node
    kind: str  # memory, swap, kv, worker_gone, stalled, kernel_oom
    node: str | None
    since: float
    value: float | None = None
    detail: str = ""
    cleared: float | None = None

    @property
    def active(self) -> bool:
        return self.cleared is None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "active": self.active}


@dataclass(frozen=True)
class DeepCheck:
    """The optional third readiness tier: a one-token completion answered."""

    ok: bool
    latency_ms: float | None = None
    status: int | None = None
    error: str | None = None
    model: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TelemetryFrame:
    cluster: str
    at: float  # time.time() of the sample
    interval: float
    nodes: list[NodeFigures]
    engine: EngineFigures | None = None
    alerts: list[Alert] = field(default_factory=list)  # active first, then recently cleared
    history: dict[str, tuple[float | None, ...]] = field(default_factory=dict)

    def node(self, name: str) -> NodeFigures | None:
        return next((n for n in self.nodes if n.node == name), None)

    @property
    def active_alerts(self) -> list[Alert]:
        return [a for a in self.alerts if a.active]

    def as_dict(self, history: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "cluster": self.cluster, "at": self.at, "interval": self.interval,
            "nodes": [n.as_dict() for n in self.nodes],
            "engine": self.engine.as_dict() if self.engine else None,
            "alerts": [a.as_dict() for a in self.alerts],
        }
        if history:
            data["history"] = {k: list(v) for k, v in self.history.items()}
        return data
