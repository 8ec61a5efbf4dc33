"""Mooncake KV store: ``mooncake-master`` (ports 8700-8702) and per-node ``mooncake-store``.

Both run from the recipe's image, which ships Mooncake with the engine.
"""

from __future__ import annotations

from typing import Any

from sparktui.config.services import MetricsSpec
from sparktui.plan.service_model import Readiness
from sparktui.plan.services.kinds.base import ServiceKind
from sparktui.plan.services.registry import register

RPC_PORT, METADATA_PORT, METRICS_PORT = 8700, 8701, 8702
STORE_PORT = 8800


@register
class MooncakeMaster(ServiceKind):
    name = "mooncake-master"
    command = ("mooncake_master", f"--port={RPC_PORT}", "--enable_http_metadata_server=true",
               "--http_metadata_server_host=0.0.0.0",
               f"--http_metadata_server_port={METADATA_PORT}", f"--metrics_port={METRICS_PORT}")
    start = "infra"

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=RPC_PORT, timeout=120.0)

    def metrics(self, options: dict[str, Any]) -> list[MetricsSpec]:
        return [MetricsSpec(port=METRICS_PORT)]

    def exports(self, ips: list[str], options: dict[str, Any]) -> dict[str, str]:
        ip = ips[0]
        return {"MOONCAKE_MASTER": f"{ip}:{RPC_PORT}",
                "MOONCAKE_TE_META_DATA_SERVER": f"http://{ip}:{METADATA_PORT}/metadata"}


@register
class MooncakeStore(ServiceKind):
    name = "mooncake-store"
    command = ("python3", "-m", "mooncake.mooncake_store_service", f"--port={STORE_PORT}")
    placement = "workers"
    uses = ("mooncake-master",)

    def environment(self, options: dict[str, Any]) -> dict[str, str]:
        return {"MOONCAKE_LOCAL_HOSTNAME": "{node_ip}", "MOONCAKE_PROTOCOL": "tcp"}

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=STORE_PORT, timeout=120.0)
