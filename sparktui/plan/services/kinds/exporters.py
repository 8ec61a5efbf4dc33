"""Prometheus exporters on every compute node: GPUs (dcgm) and the host (node)."""

from __future__ import annotations

from typing import Any

from sparktui.config.services import MetricsSpec
from sparktui.plan.service_model import Readiness
from sparktui.plan.services.kinds.base import ServiceKind
from sparktui.plan.services.registry import register

DCGM_PORT, NODE_PORT = 9401, 9101


@register
class DcgmExporter(ServiceKind):
    name = "dcgm-exporter"
    image = "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"
    command = ("dcgm-exporter", "-a", f":{DCGM_PORT}")
    start = "infra"
    critical = False
    placement = "compute"
    gpus = True
    docker_flags = ("--cap-add", "SYS_ADMIN")

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=DCGM_PORT, timeout=120.0)

    def metrics(self, options: dict[str, Any]) -> list[MetricsSpec]:
        return [MetricsSpec(port=DCGM_PORT)]


@register
class NodeExporter(ServiceKind):
    name = "node-exporter"
    image = "quay.io/prometheus/node-exporter:v1.8.2"
    command = ("node_exporter", "--path.rootfs=/host", f"--web.listen-address=:{NODE_PORT}")
    start = "infra"
    critical = False
    placement = "compute"
    docker_flags = ("--pid", "host", "-v", "/:/host:ro,rslave")

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=NODE_PORT, timeout=60.0)

    def metrics(self, options: dict[str, Any]) -> list[MetricsSpec]:
        return [MetricsSpec(port=NODE_PORT)]
