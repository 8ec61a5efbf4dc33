"""Health of a cluster: every node at once, so the check costs about one round trip."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import replace

from sparktui import untrusted_json
from sparktui.engine.deadline import within
from sparktui.engine.remote.http import MAX_BODY, METRICS_BODY, AnswerTooLarge, http_get
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import EngineStatus, NodeHealth, Workload
from sparktui.engine.telemetry.metrics import engine_figures
from sparktui.engine.workloads.discover import list_node
from sparktui.i18n import N_
from sparktui.said import Code, Seconds, said


class HealthSaid(Code):
    TOO_LARGE = N_("{error} on port {port}")
    PORT_TIMEOUT = N_("timeout on port {port}")
    NOT_ANSWERING = N_("not answering on port {port}")
    NODE_TIMEOUT = N_("timeout ({seconds})")


async def engine_status(transport: Transport, host: str, port: int,
                        timeout: float) -> EngineStatus:
    """/health (alive), /v1/models (ready, names) and /metrics (load), concurrently."""
    async def get(path: str):
        try:
            return await http_get(transport, host, port, path, timeout,
                                  limit=METRICS_BODY if path == "/metrics" else MAX_BODY)
        except Exception as exc:  # refused, timed out, or an SSH channel error: not answering
            return exc

    health, models, metrics = await asyncio.gather(get("/health"), get("/v1/models"),
                                                   get("/metrics"))
    too_large = next((a for a in (models, health, metrics) if isinstance(a, AnswerTooLarge)),
                     None)
    too_large_text = (said(HealthSaid.TOO_LARGE, error=too_large.said, port=port)
                      if too_large is not None else None)
    timed_out = isinstance(health, TimeoutError) or isinstance(models, TimeoutError)
    if isinstance(health, Exception) and isinstance(models, Exception):
        reason = (HealthSaid.PORT_TIMEOUT if isinstance(health, TimeoutError)
                  else HealthSaid.NOT_ANSWERING)
        return EngineStatus(health_ok=False, ready=False, timed_out=timed_out,
                            error=too_large_text or said(reason, port=port))
    names: list[str] = []
    ready = not isinstance(models, Exception) and models.status == 200
    if ready:
        try:
            names = [m.get("id", "") for m in untrusted_json.loads(models.body).get("data", [])]
        except (json.JSONDecodeError, AttributeError):
            ready = False
    running = waiting = kv = None
    metrics_ok = False
    if not isinstance(metrics, Exception) and metrics.status == 200:
        with contextlib.suppress(ValueError):
            running, waiting, kv = engine_figures(metrics.body)
            metrics_ok = running is not None or waiting is not None or kv is not None
    return EngineStatus(health_ok=not isinstance(health, Exception) and health.status == 200,
                        ready=ready, models=names, running=running, waiting=waiting,
                        kv_cache=kv, metrics_ok=metrics_ok, error=too_large_text,
                        timed_out=timed_out and not ready)


async def node_health(transport: Transport, timeout: float) -> NodeHealth:
    node = transport.node
    started = time.perf_counter()
    try:
        workloads, docker_error = await within(list_node(transport, timeout), timeout)
    except NodeError as exc:  # the reason, its detail, and the fix when it is known
        return NodeHealth(node.name, reachable=False, error=exc.said_with_hint)
    except TimeoutError:
        return NodeHealth(node.name, reachable=False,
                          error=said(HealthSaid.NODE_TIMEOUT, seconds=Seconds(timeout)))
    latency = (time.perf_counter() - started) * 1000
    heads = serving_heads(workloads)
    engines = await asyncio.gather(*(engine_status(transport, node.ssh_ip, h.port or 0, timeout)
                                     for h in heads))
    return NodeHealth(node.name, reachable=True, latency_ms=round(latency, 1),
                      workloads=workloads, docker_error=docker_error,
                      engines=[replace(e, recipe=h.recipe, port=h.port)
                               for h, e in zip(heads, engines, strict=True)])


def serving_heads(workloads: list[Workload]) -> list[Workload]:
    """Every running head with a port, one per recipe, by recipe name."""
    heads = sorted((w for w in workloads  # a foreign head is never asked, nor routed to
                    if w.ours and w.role == "head" and w.running and w.port),
                   key=lambda w: (w.recipe, w.port or 0))
    chosen: dict[str, Workload] = {}
    for w in heads:
        chosen.setdefault(w.recipe, w)
    return list(chosen.values())
