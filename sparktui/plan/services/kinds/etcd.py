"""``etcd``: the discovery plane Dynamo workers and frontends register in."""

from __future__ import annotations

from typing import Any

from sparktui.plan.service_model import Readiness
from sparktui.plan.services.kinds.base import ServiceKind
from sparktui.plan.services.registry import register

CLIENT_PORT = 2379


@register
class Etcd(ServiceKind):
    name = "etcd"
    image = "quay.io/coreos/etcd:v3.5.17"
    command = ("etcd", "--name", "sparktui-etcd", "--data-dir", "/tmp/etcd",
               "--listen-client-urls", f"http://0.0.0.0:{CLIENT_PORT}",
               "--advertise-client-urls", f"http://{{node_ip}}:{CLIENT_PORT}",
               "--listen-peer-urls", "http://0.0.0.0:2380")
    start = "infra"

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=CLIENT_PORT, timeout=60.0)

    def exports(self, ips: list[str], options: dict[str, Any]) -> dict[str, str]:
        return {"ETCD_ENDPOINTS": ",".join(f"http://{ip}:{CLIENT_PORT}" for ip in ips)}
