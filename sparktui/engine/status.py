"""What the engine reads from the cluster: small immutable values the TUI renders.

Everything here is discovered from the nodes themselves (container labels, the
head's HTTP endpoints), never from local state, so a restarted app or a second
operator sees the same truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


@dataclass(frozen=True)
class Workload:
    """One sparktui container (or tmux session) found on a node, by its labels."""

    name: str
    recipe: str
    cluster: str
    node: str
    rank: int
    role: str  # "head" or "worker"
    runtime: str  # "docker" or "tmux"
    state: str  # docker's State: running, exited, restarting, created, ...
    status: str = ""  # docker's human Status: "Up 5 minutes", "Exited (1) 3 s ago"
    port: int | None = None
    image: str = ""
    started_at: str | None = None
    restarts: int = 0
    exit_code: int | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class EngineStatus:
    """The head's API as seen through the SSH connection."""

    health_ok: bool | None = None  # /health answered 200
    ready: bool | None = None  # /v1/models answered 200
    models: list[str] = field(default_factory=list)
    running: float | None = None  # requests being served
    waiting: float | None = None  # requests queued
    kv_cache: float | None = None  # 0..1
    error: str | None = None

    @property
    def busy(self) -> bool:
        return bool((self.running or 0) + (self.waiting or 0))

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class NodeHealth:
    node: str
    reachable: bool
    error: str | None = None  # why unreachable / what failed, for the operator
    latency_ms: float | None = None
    workloads: list[Workload] = field(default_factory=list)
    engine: EngineStatus | None = None  # only for a node that heads a workload

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node, "reachable": self.reachable, "error": self.error,
            "latency_ms": self.latency_ms,
            "workloads": [w.as_dict() for w in self.workloads],
            "engine": self.engine.as_dict() if self.engine else None,
        }


@dataclass(frozen=True)
class ClusterHealth:
    cluster: str
    nodes: list[NodeHealth]
    checked_at: float  # time.time() when the check finished

    @property
    def workloads(self) -> list[Workload]:
        return [w for n in self.nodes for w in n.workloads]

    @property
    def serving(self) -> bool:
        """True when any head answers /v1/models or has requests in flight."""
        return any(n.engine is not None and (n.engine.ready or n.engine.busy)
                   for n in self.nodes)

    @property
    def all_reachable(self) -> bool:
        return all(n.reachable for n in self.nodes)

    def as_dict(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "checked_at": self.checked_at,
                "serving": self.serving, "nodes": [n.as_dict() for n in self.nodes]}


class LogLine(NamedTuple):
    """A tuple, not a dataclass: streams make hundreds of thousands per second."""

    node: str
    text: str
    gap: bool = False  # a marker: the stream dropped and reconnected here


class LogBatch(NamedTuple):
    """Lines that arrived together from one node: the unit log streams move in.

    One tuple per batch instead of one per line keeps a flood cheap to carry.
    """

    node: str
    lines: list[str]
    gap: bool = False  # the stream dropped and reconnected here (``lines`` is empty)
