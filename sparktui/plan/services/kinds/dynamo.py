"""``dynamo-frontend``: the Dynamo HTTP frontend on the head, found by workers via etcd/nats."""

from __future__ import annotations

from typing import Any

from sparktui.config.services import MetricsSpec
from sparktui.plan.service_model import Readiness
from sparktui.plan.services.kinds.base import Option, ServiceKind
from sparktui.plan.services.registry import register

DEFAULT_PORT = 8000


@register
class DynamoFrontend(ServiceKind):
    name = "dynamo-frontend"
    start = "before_workers"
    uses = ("etcd", "nats")
    options = {"http_port": Option(int, "a port from 1 to 65535", 1, 65535)}

    def port(self, options: dict[str, Any]) -> int:
        return int(options.get("http_port", DEFAULT_PORT))

    def default_command(self, options: dict[str, Any]) -> list[str]:
        return ["python3", "-m", "dynamo.frontend", "--http-port", str(self.port(options))]

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("http", port=self.port(options), path="/health", timeout=600.0)

    def metrics(self, options: dict[str, Any]) -> list[MetricsSpec]:
        return [MetricsSpec(port=self.port(options))]
