"""Services in a launch plan: etcd, NATS, Mooncake, exporters, generic processes.

The contract between ``plan/services`` (which computes these) and
``engine/services`` (which launches them). Frozen dataclasses, like the rest of
the plan; ``as_dict`` is part of the JSON contract (docs/plan-format.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparktui.config.runtime_name import RuntimeName

# Start phases, in launch order. The engine (workers, then head) starts between
# "before_workers" and "after_frontend"; "after_frontend" waits for the head's
# API (or the Dynamo frontend) to be ready.
PHASES = ("infra", "before_workers", "after_frontend")


@dataclass(frozen=True)
class Readiness:
    """How an instance proves it is up: a TCP connect, an HTTP 2xx, a log regex, or nothing."""

    kind: str  # "tcp" | "http" | "log" | "none"
    port: int | None = None
    path: str | None = None  # http only
    pattern: str | None = None  # log only: a Python regex matched per line
    timeout: float = 300.0

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "port": self.port, "path": self.path,
                "pattern": self.pattern, "timeout": self.timeout}


@dataclass(frozen=True)
class MetricsEndpoint:
    """One Prometheus scrape target per node in ``nodes``."""

    name: str
    port: int
    path: str
    nodes: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "port": self.port, "path": self.path,
                "nodes": list(self.nodes)}


@dataclass(frozen=True)
class ServiceInstance:
    """One container of a service on one node (``index`` counts within the service)."""

    service: str
    index: int
    node: str
    ssh_ip: str
    ssh_port: int
    ib_ip: str
    local: bool
    container: str
    env: dict[str, str]
    launch: list[str]  # the full argv run on the node (docker run ... or tmux ...)
    rank: int = -1  # the node's rank in the cluster

    def as_dict(self) -> dict[str, Any]:
        return {"service": self.service, "index": self.index, "node": self.node,
                "ssh_ip": self.ssh_ip, "ssh_port": self.ssh_port, "ib_ip": self.ib_ip,
                "local": self.local, "container": self.container, "env": dict(self.env),
                "launch": list(self.launch), "rank": self.rank}


@dataclass(frozen=True)
class ServicePlan:
    name: str
    type: str
    start: str  # one of PHASES
    critical: bool
    terminal: bool
    nodes: list[str]
    instances: list[ServiceInstance]
    readiness: Readiness
    metrics: list[MetricsEndpoint] = field(default_factory=list)
    pool: str | None = None  # the pool it owns or rides on
    implied_by: str | None = None
    image: str = ""  # the container image ("" for the tmux runtime's host command)
    runtime: RuntimeName = "docker"
    owns_pool: bool = False  # True for the pool's owner, False for a rider
    placement: str = ""  # head | workers | compute | all | dedicated | pool

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "nodes": list(self.nodes),
            "start": self.start,
            "critical": self.critical,
            "terminal": self.terminal,
            "pool": self.pool,
            "readiness": self.readiness.as_dict(),
            "metrics": [m.as_dict() for m in self.metrics],
            "implied_by": self.implied_by,
            "image": self.image,
            "runtime": self.runtime,
            "owns_pool": self.owns_pool,
            "placement": self.placement,
            "instances": [i.as_dict() for i in self.instances],
        }
