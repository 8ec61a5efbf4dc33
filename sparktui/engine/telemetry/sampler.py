"""Live telemetry of one cluster: sample every node and the head, keep the history.

A sample costs one SSH channel per node (``nodestats.sample_command``) plus one
direct-tcpip channel for the head's ``/metrics``; an exporter service found on a node
(dcgm-exporter, node-exporter) is read instead of the matching part of the command.
Deltas (CPU, token rates, histogram windows) need the previous samples, so one
``ClusterTelemetry`` lives per cluster for as long as the engine does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable

from sparktui import untrusted_json
from sparktui.config.models import Cluster, Config, Node
from sparktui.engine.deadline import within
from sparktui.engine.health import HealthSaid
from sparktui.engine.health import serving_heads as heads_of
from sparktui.engine.remote.failure import failure
from sparktui.engine.remote.http import METRICS_BODY, http_get, http_request
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.services.labels import metrics as metric_endpoints
from sparktui.engine.status import ClusterHealth, Workload
from sparktui.engine.telemetry import metrics, nodestats
from sparktui.engine.telemetry.alerts import AlertBook, AlertRules
from sparktui.engine.telemetry.figures import (
    DeepCheck,
    EngineFigures,
    NodeFigures,
    TelemetryFrame,
    cluster_total,
    history_key,
)
from sparktui.engine.telemetry.history import History
from sparktui.plan.services.kinds.exporters import DCGM_PORT, NODE_PORT
from sparktui.said import Seconds, said

PERCENTILE_WINDOW = 60.0
RATE_WINDOW = 5.0
"""Token rates are taken over the last few seconds, as Prometheus' ``rate()`` over a
range: between two samples alone, the jitter of one scrape's latency (a busy head, a
slow link) is a large share of a short interval."""
EXPORTERS = {"dcgm-exporter": DCGM_PORT, "node-exporter": NODE_PORT}
"""Exporter kind -> its default port, for a container that carries no metrics label."""


def exporter_kind(workload: Workload) -> str | None:
    """``dcgm-exporter``/``node-exporter`` for a running exporter service, else None."""
    if not workload.running or not workload.is_service:
        return None
    names = (workload.labels.get("service_type", ""), workload.service or "", workload.name)
    for name in names:
        norm = name.lower().replace("_", "-")
        for kind in EXPORTERS:
            if kind in norm:
                return kind
    return None


def exporters_on(workloads: list[Workload]) -> dict[str, tuple[int, str]]:
    """kind -> (port, path) of the exporters a node runs."""
    found: dict[str, tuple[int, str]] = {}
    for w in workloads:
        kind = exporter_kind(w)
        if kind is None or kind in found:
            continue
        endpoints = metric_endpoints(w)
        port = endpoints[0].port if endpoints else w.port or EXPORTERS[kind]
        found[kind] = (port, endpoints[0].path if endpoints else "/metrics")
    return found


def serving_heads(health: ClusterHealth | None) -> list[Workload]:
    """Every running head with a port, one per recipe, by recipe name."""
    return [] if health is None else heads_of(health.workloads)


def serving_head(health: ClusterHealth | None, recipe: str | None = None) -> Workload | None:
    """The head of ``recipe``, or of the first recipe serving on the cluster."""
    return next((h for h in serving_heads(health) if recipe is None or h.recipe == recipe),
                None)


ENGINE_SERIES = ("gen_tps", "prompt_tps", "kv_cache", "running", "waiting", "ttft_p95",
                 "tpot_p95")


class ClusterTelemetry:
    """Samples one cluster; keeps CPU counters, engine snapshots, history and alerts."""

    def __init__(self, cluster: Cluster, config: Config,
                 transport_for: Callable[[Node], Transport], *, interval: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.cluster = cluster
        self.config = config
        self.transport_for = transport_for
        self.interval = interval or config.telemetry_interval_seconds
        self.clock = clock
        self.history = History(self.interval)
        self.rules = AlertRules(stall_seconds=config.telemetry_stall_seconds)
        self.book = AlertBook()
        # node -> (source, cumulative CPU): /proc jiffies and node-exporter seconds differ,
        # so a delta is taken only between two readings of one source
        self._cpu: dict[str, tuple[str | None, tuple[float, float] | None] | None] = {}
        # (recipe, node, port) -> its /metrics snapshots: each engine's counters apart
        self._snaps: dict[tuple[str, str, int], deque[metrics.EngineSnapshot]] = {}
        self.channels = 0  # SSH channels opened by samples, for the benchmark

    async def sample(self, health: ClusterHealth | None) -> TelemetryFrame:
        timeout = self.config.health_timeout_seconds
        rows = {n.node: n for n in health.nodes} if health else {}
        nodes = self.cluster.ranked
        by_name = {n.name: n for n in nodes}
        heads = [h for h in serving_heads(health) if h.node in by_name]
        jobs = [self._node(n, exporters_on(rows[n.name].workloads) if n.name in rows else {},
                           timeout) for n in nodes]
        figures, engines = await asyncio.gather(asyncio.gather(*jobs), asyncio.gather(*(
            self._engine(h.recipe, by_name[h.node], h.port or 0, timeout) for h in heads)))
        keep = {(h.recipe, h.node, h.port or 0) for h in heads}
        for key in [k for k in self._snaps if k not in keep]:
            del self._snaps[key]  # stopped or moved: a new engine's counters start anew
        now = self.clock()
        total = cluster_total(engines)
        self._record(now, figures, total, engines)
        conditions = self.rules.evaluate(now, figures, engines, self.history, health)
        alerts = self.book.update(now, conditions)
        return TelemetryFrame(self.cluster.name, now, self.interval, figures, total, alerts,
                              self.history.snapshot(), engines)

    # -- nodes -----------------------------------------------------------------------------
    async def _node(self, node: Node, exporters: dict[str, tuple[int, str]],
                    timeout: float) -> NodeFigures:
        transport = self.transport_for(node)
        command = nodestats.sample_command(self.config.hf_cache_host,
                                           proc="node-exporter" not in exporters,
                                           gpu="dcgm-exporter" not in exporters)

        async def scrape(kind: str) -> tuple[str, str | None]:
            port, path = exporters[kind]
            self.channels += 1
            try:
                answer = await http_get(transport, node.ssh_ip, port, path, timeout,
                                        limit=METRICS_BODY)
            except Exception:  # refused, timed out: fall back to the command next time
                return kind, None
            return kind, answer.body if answer.status == 200 else None

        self.channels += 1
        try:
            result, scraped = await asyncio.gather(
                within(transport.run(command, timeout=timeout), timeout),
                asyncio.gather(*(scrape(kind) for kind in exporters)))
        except NodeError as exc:
            self._cpu[node.name] = None
            return NodeFigures(node.name, reachable=False, error=exc.said)
        except TimeoutError:
            self._cpu[node.name] = None
            return NodeFigures(node.name, reachable=False,
                               error=said(HealthSaid.NODE_TIMEOUT, seconds=Seconds(timeout)))
        raw = nodestats.parse_sample(result.stdout)
        # What really produced each figure: a tool that is absent or failed gave none
        # (None), and the figures are then not the tool's.
        sources: dict[str, str | None] = {"cpu_mem": "proc" if raw.cpu or raw.mem else None,
                                          "gpu": "nvidia-smi" if _any(raw.gpu) else None}
        for kind, body in scraped:
            if body is None:
                continue
            if kind == "node-exporter":
                nodestats.parse_node_exporter(body, raw)
                if raw.cpu or raw.mem:
                    sources["cpu_mem"] = kind
            else:
                nodestats.parse_dcgm(body, raw)
                if _any(raw.gpu):
                    sources["gpu"] = kind
        before = self._cpu.get(node.name)
        cpu = nodestats.cpu_percent(before[1] if before and before[0] == sources["cpu_mem"]
                                    else None, raw.cpu)
        self._cpu[node.name] = (sources["cpu_mem"], raw.cpu)
        mem = nodestats.memory_split(raw.mem)
        return NodeFigures(
            node.name, cpu_pct=cpu, **mem, gpu_util=raw.gpu.get("util"),
            gpu_power=raw.gpu.get("power"), gpu_temp=raw.gpu.get("temp"),
            gpu_mem_used=raw.gpu.get("mem_used"), disk_path=self.config.hf_cache_host,
            disk_free=raw.disk[0] if raw.disk else None,
            disk_total=raw.disk[1] if raw.disk else None, kernel=raw.kernel, sources=sources)

    # -- the head ----------------------------------------------------------------------------
    async def _engine(self, recipe: str, node: Node, port: int,
                      timeout: float) -> EngineFigures:
        snaps = self._snaps.setdefault((recipe, node.name, port), deque())
        self.channels += 1
        try:
            asked = time.monotonic()
            answer = await http_get(self.transport_for(node), node.ssh_ip, port, "/metrics",
                                    timeout, limit=METRICS_BODY)
            if answer.status != 200:
                raise ConnectionError(f"HTTP {answer.status}")
            # the engine wrote its counters somewhere between the question and the answer
            snap = metrics.snapshot(answer.body, (asked + time.monotonic()) / 2)
        except Exception as exc:
            return EngineFigures(node.name, port, error=failure(exc), recipe=recipe)
        prev = next((s for s in snaps if s.t >= snap.t - RATE_WINDOW),
                    snaps[-1] if snaps else None)
        snaps.append(snap)
        while len(snaps) > 2 and snaps[1].t <= snap.t - PERCENTILE_WINDOW:
            snaps.popleft()  # keep one snapshot at or before the window's start
        base = snaps[0]
        ttft = metrics.bucket_delta(base.ttft, snap.ttft) if base is not snap else {}
        tpot = metrics.bucket_delta(base.tpot, snap.tpot) if base is not snap else {}
        dt = snap.t - prev.t if prev is not None else 0.0
        return EngineFigures(
            node.name, port, snap.running, snap.waiting, snap.kv_cache,
            metrics.rate(prev.prompt_tokens, snap.prompt_tokens, dt) if prev else None,
            metrics.rate(prev.generation_tokens, snap.generation_tokens, dt) if prev else None,
            metrics.quantile(0.5, ttft), metrics.quantile(0.95, ttft),
            metrics.quantile(0.5, tpot), metrics.quantile(0.95, tpot), recipe=recipe)

    # -- history -----------------------------------------------------------------------------
    def _record(self, now: float, figures: list[NodeFigures], engine: EngineFigures | None,
                engines: list[EngineFigures]) -> None:
        values: dict[str, float | None] = {}
        for f in figures:
            for name in ("cpu_pct", "mem_pct", "swap_used", "gpu_util", "gpu_power",
                         "gpu_temp"):
                values[f"{f.node}.{name}"] = getattr(f, name)
        if engine is not None:
            for name in ENGINE_SERIES:
                values[f"engine.{name}"] = getattr(engine, name)
        elif "engine.gen_tps" in self.history.names():
            values.update({f"engine.{name}": None for name in ("gen_tps", "kv_cache")})
        serving = {e.recipe for e in engines}
        for e in engines:
            for name in ("gen_tps", "kv_cache"):
                values[history_key(e.recipe, name)] = getattr(e, name)
        for key in self.history.names():  # a stopped recipe's series shows the gap
            if key.startswith("engine[") and key[7:key.index("]")] not in serving:
                values[key] = None
        self.history.add(now, values)


# -- the third readiness tier ----------------------------------------------------------------

async def deep_check(transport: Transport, host: str, port: int, model: str | None,
                     timeout: float) -> DeepCheck:
    """POST a one-token completion through the SSH connection; ok on a 200 with a choice."""
    body = json.dumps({"model": model or "", "prompt": "ping", "max_tokens": 1,
                       "temperature": 0}).encode()
    started = time.perf_counter()
    try:
        answer = await http_request(transport, host, port, "POST", "/v1/completions",
                                    timeout, body=body)
    except Exception as exc:
        return DeepCheck(False, error=failure(exc), model=model)
    latency = round((time.perf_counter() - started) * 1000, 1)
    ok = False
    if answer.status == 200:
        try:
            ok = bool(untrusted_json.loads(answer.body).get("choices"))
        except (ValueError, AttributeError):
            ok = False
    return DeepCheck(ok, latency, answer.status, None if ok else answer.body[:200], model)


def _any(figures: dict[str, float | None]) -> bool:
    return any(value is not None for value in figures.values())
