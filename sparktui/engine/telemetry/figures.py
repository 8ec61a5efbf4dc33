"""Telemetry values: what one sample of a cluster says, as small immutable records.

The sampler (``sparktui.engine.telemetry.sampler``) makes them; the dashboard, ``top --json``
and ``health --json`` show them. Sizes are bytes, rates per second, times seconds,
shares 0..100 for node figures (as operators read ``top``) and 0..1 for the KV cache
(as the engines publish it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from sparktui.said import Text, json_value

MEMORY_PCT = 90.0
"""A node's memory in use past this share (0..100) is an alert; the dashboard marks it."""
KV_SHARE = 0.95
"""An engine's KV cache past this share (0..1) is an alert; the dashboard marks it."""
TELEMETRY_HEALTH_AGE = 15.0
"""Seconds: how old a health check ``top`` lets telemetry use before refreshing it."""


def _as_dict(record: Any) -> dict[str, Any]:
    """Its fields for JSON: a sentence as its code and values."""
    return {f.name: json_value(getattr(record, f.name)) for f in fields(record)}


@dataclass(frozen=True)
class NodeFigures:
    node: str
    reachable: bool = True
    error: Text | None = None
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
        return _as_dict(self)


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
    error: Text | None = None
    recipe: str = ""  # whose head this is; "" in a cluster's total of several

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)


def history_key(recipe: str, name: str) -> str:
    """One engine's series: ``engine[glm].gen_tps`` (``engine.gen_tps`` is the total)."""
    return f"engine[{recipe}].{name}"


def _sum(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _max(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def cluster_total(engines: list[EngineFigures]) -> EngineFigures | None:
    """The one engine, or several summed (requests, token rates) or at their worst (KV
    cache, latencies): what the header and the wall show for a cluster."""
    if len(engines) <= 1:
        return engines[0] if engines else None
    live = [e for e in engines if e.error is None]
    if not live:
        return EngineFigures("", 0, error=engines[0].error)
    return EngineFigures(
        "", 0, _sum([e.running for e in live]), _sum([e.waiting for e in live]),
        _max([e.kv_cache for e in live]), _sum([e.prompt_tps for e in live]),
        _sum([e.gen_tps for e in live]), _max([e.ttft_p50 for e in live]),
        _max([e.ttft_p95 for e in live]), _max([e.tpot_p50 for e in live]),
        _max([e.tpot_p95 for e in live]))


@dataclass(frozen=True)
class Alert:
    """A threshold crossed: ``since`` when it fired, ``cleared`` when it stopped (or None)."""

    key: str  # stable identity: kind + node
    kind: str  # memory, swap, kv, worker_gone, stalled, kernel_oom
    node: str | None
    since: float
    value: float | None = None
    detail: Text = ""
    cleared: float | None = None

    @property
    def active(self) -> bool:
        return self.cleared is None

    def as_dict(self) -> dict[str, Any]:
        return {**_as_dict(self), "active": self.active}


@dataclass(frozen=True)
class DeepCheck:
    """The optional third readiness tier: a one-token completion answered."""

    ok: bool
    latency_ms: float | None = None
    status: int | None = None
    error: Text | None = None
    model: str | None = None
    unknown: bool = False  # no head answers, and a node did not say what runs (``error``)

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True)
class TelemetryFrame:
    cluster: str
    at: float  # time.time() of the sample
    interval: float
    nodes: list[NodeFigures]
    engine: EngineFigures | None = None  # the one engine, or the total of ``engines``
    alerts: list[Alert] = field(default_factory=list)  # active first, then recently cleared
    history: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    engines: list[EngineFigures] = field(default_factory=list)
    """One per recipe serving on the cluster, by recipe name."""

    def __post_init__(self) -> None:
        if self.engine is not None and not self.engines:
            object.__setattr__(self, "engines", [self.engine])

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
            "engines": [e.as_dict() for e in self.engines],
            "alerts": [a.as_dict() for a in self.alerts],
        }
        if history:
            data["history"] = {k: list(v) for k, v in self.history.items()}
        return data
