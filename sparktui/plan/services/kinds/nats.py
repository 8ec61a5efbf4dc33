"""``nats``: the message plane (JetStream on); ``options.max_payload_mb`` raises the limit."""

from __future__ import annotations

from typing import Any

from sparktui.plan.service_model import Readiness
from sparktui.plan.services.kinds.base import Option, ServiceKind
from sparktui.plan.services.registry import register

PORT = 4222
_SERVER = ["nats-server", "-js", "-p", str(PORT), "-m", "8222"]
# nats-server takes max_payload only from a config file: write one, then exec the
# server. The value arrives as "$1", never inside the script text.
_WITH_PAYLOAD = ('printf "max_payload: %s\\n" "$1" > /tmp/nats.conf && '
                 "exec nats-server -c /tmp/nats.conf " + " ".join(_SERVER[1:]))


@register
class Nats(ServiceKind):
    name = "nats"
    image = "nats:2.10-alpine"
    start = "infra"
    options = {"max_payload_mb": Option(int, "an integer from 1 to 64", 1, 64)}

    def default_command(self, options: dict[str, Any]) -> list[str]:
        mb = options.get("max_payload_mb")
        if mb is None:
            return list(_SERVER)
        return ["sh", "-c", _WITH_PAYLOAD, "sh", str(mb * 1024 * 1024)]

    def readiness(self, options: dict[str, Any]) -> Readiness:
        return Readiness("tcp", port=PORT, timeout=60.0)

    def exports(self, ips: list[str], options: dict[str, Any]) -> dict[str, str]:
        return {"NATS_SERVER": ",".join(f"nats://{ip}:{PORT}" for ip in ips)}
