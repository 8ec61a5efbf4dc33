"""Services in a health check: instances grouped by service, readiness probed, metrics
scraped, all from the labels found on the nodes and through each node's transport."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping

from sparktui.engine.deadline import within
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import Transport
from sparktui.engine.services import labels, probe
from sparktui.engine.status import (
    MetricsStatus,
    NodeHealth,
    ServiceInstanceStatus,
    ServiceStatus,
    Workload,
)
from sparktui.engine.telemetry.metrics import sample_values

# Figures worth a glance, by exporter; the first few present are shown.
HEADLINE = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_FB_USED", "node_load1", "node_memory_MemAvailable_bytes",
            "etcd_server_has_leader", "gnatsd_varz_connections", "up")
HEADLINE_COUNT = 3


async def service_statuses(nodes: list[NodeHealth], transports: Mapping[str, Transport],
                           timeout: float) -> list[ServiceStatus]:
    """One ServiceStatus per (recipe, service) found on the reachable nodes."""
    found = [w for n in nodes if n.reachable for w in n.workloads if w.is_service]
    groups: dict[tuple[str, str], list[Workload]] = {}
    for w in found:
        groups.setdefault((w.recipe, w.service or w.name), []).append(w)
    return list(await asyncio.gather(*(
        _service(recipe, name, ws, transports, timeout)
        for (recipe, name), ws in sorted(groups.items()))))


async def _service(recipe: str, name: str, workloads: list[Workload],
                   transports: Mapping[str, Transport], timeout: float) -> ServiceStatus:
    workloads = sorted(workloads, key=lambda w: (w.service_index or 0, w.node))
    instances = await asyncio.gather(*(_instance(w, transports.get(w.node), timeout)
                                       for w in workloads))
    scrapes = [(ep, w) for w in workloads if w.running for ep in labels.metrics(w)
               if (ep.nodes is None or w.node in ep.nodes)
               and not (ep.first_only and w.service_index)]
    metrics = await asyncio.gather(*(_scrape(ep, w, transports.get(w.node), timeout)
                                     for ep, w in scrapes))
    first = workloads[0]
    return ServiceStatus(name=name, recipe=recipe, type=first.labels.get("service_type", ""),
                         critical=labels.flag(first, "critical"),
                         terminal=labels.flag(first, "terminal"),
                         instances=list(instances), metrics=list(metrics),
                         pool=first.labels.get("pool") or None)


async def _instance(w: Workload, t: Transport | None, timeout: float) -> ServiceInstanceStatus:
    readiness = labels.readiness(w)
    ready = None
    if readiness is not None and readiness.kind != "none" and w.running and t is not None:
        target = probe.Target(w.node, t.node.ssh_ip, w.name, w.runtime)
        with contextlib.suppress(Exception):
            ready = await within(probe.ready(t, target, readiness, timeout), timeout)
        ready = bool(ready)
    return ServiceInstanceStatus(
        node=w.node, index=w.service_index or 0, container=w.name, state=w.state,
        exit_code=w.exit_code, ready=ready,
        readiness=probe.describe(readiness) if readiness is not None else "")


async def _scrape(ep: labels.Endpoint, w: Workload, t: Transport | None,
                  timeout: float) -> MetricsStatus:
    def down(error: str) -> MetricsStatus:
        return MetricsStatus(ep.name, w.node, ep.port, ep.path, up=False, error=error)

    if t is None:
        return down("no transport")
    try:
        answer = await http_get(t, t.node.ssh_ip, ep.port, ep.path, timeout)
    except Exception as exc:  # refused, timed out: the endpoint is down
        return down(type(exc).__name__)
    if answer.status != 200:
        return down(f"HTTP {answer.status}")
    try:
        values = sample_values(answer.body)
    except ValueError as exc:
        return down(f"unparsable: {exc}"[:120])
    headline = {k: values[k] for k in HEADLINE if k in values}
    headline = dict(list(headline.items())[:HEADLINE_COUNT])
    return MetricsStatus(ep.name, w.node, ep.port, ep.path, up=True, samples=len(values),
                         headline=headline)
