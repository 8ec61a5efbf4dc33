"""What the engine reads from the cluster: small immutable values the TUI renders.

Everything here is discovered from the nodes themselves (container labels, the
head's HTTP endpoints), never from local state, so a restarted app or a second
operator sees the same truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.slurm.jobs import SlurmStatus
from sparktui.engine.supervise.record import SupervisionStatus
from sparktui.i18n import N_
from sparktui.said import Code, Items, Said, Text, json_value, said

if TYPE_CHECKING:
    from sparktui.plan.runtime.base import Runtime


class StatusSaid(Code):
    NODE_SILENT = N_("{node} does not answer")
    DOCKER_SILENT = N_("docker on {node} does not answer")
    UNKNOWN = N_("unknown: {why}")


def _runtime(name: RuntimeName) -> type[Runtime]:
    from sparktui.plan.runtime import RUNTIMES  # pure, but not needed for a first frame

    return RUNTIMES[name]


@dataclass(frozen=True)
class Workload:
    """One sparktui container (or tmux session) found on a node, by its labels."""

    name: str
    recipe: str
    cluster: str
    node: str
    rank: int
    role: str  # "head" or "worker"
    runtime: RuntimeName
    state: str  # docker's State: running, exited, restarting, created, ...
    status: str = ""  # docker's human Status: "Up 5 minutes", "Exited (1) 3 s ago"
    port: int | None = None
    image: str = ""
    started_at: str | None = None
    restarts: int = 0
    exit_code: int | None = None
    service: str | None = None  # role "service": the service's name (labels below too)
    service_index: int | None = None
    mem_share: float | None = None  # engine members: the share of the node's memory it holds
    labels: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    foreign: Text = ""
    """Why sparktui did not make it, or its labels cannot be taken (they name another
    node, miss the run id or repeat the image's, do not parse): shown, never stopped,
    restarted, supervised or restored. Empty: sparktui's own."""
    image_id: str = field(default="", compare=False, repr=False)  # docker's, of its image

    @property
    def ours(self) -> bool:
        """sparktui made it, and it is what its labels say: stop and restore may act on it."""
        return not self.foreign

    @property
    def running(self) -> bool:
        return self.state == "running"

    @property
    def is_service(self) -> bool:
        return self.role == "service" or self.service is not None

    # What its runtime can do (``sparktui.plan.runtime.base.Runtime``): the front-ends
    # ask these, never the runtime's name. The runtimes' modules are imported when first
    # asked (``_runtime``): the dashboard imports these values before its first frame.
    @property
    def can_enter(self) -> bool:
        """A shell can be opened in it (``shell``, the dashboard's ``a``)."""
        return _runtime(self.runtime).can_enter

    @property
    def can_inspect(self) -> bool:
        """It has a description to read (``inspect``, the dashboard's ``i``)."""
        return _runtime(self.runtime).can_inspect

    @property
    def can_attach(self) -> bool:
        """The terminal can be handed to its console (``tmux``, the dashboard's ``t``)."""
        return _runtime(self.runtime).can_attach

    @property
    def has_image(self) -> bool:
        """It runs in a container image (an image ID to compare, images to check)."""
        return _runtime(self.runtime).runs_image

    def as_dict(self) -> dict[str, Any]:
        return {k: json_value(v) for k, v in self.__dict__.items()
                if k not in ("labels", "image_id")}


@dataclass(frozen=True)
class EngineStatus:
    """The head's API as seen through the SSH connection."""

    health_ok: bool | None = None  # /health answered 200
    ready: bool | None = None  # /v1/models answered 200
    models: list[str] = field(default_factory=list)
    running: float | None = None  # requests being served
    waiting: float | None = None  # requests queued
    kv_cache: float | None = None  # 0..1
    error: Text | None = None
    metrics_ok: bool | None = None  # /metrics answered with engine figures (SGLang: only
    # with --enable-metrics)
    recipe: str = ""  # the recipe whose head answered (several may serve from one node)
    port: int | None = None
    timed_out: bool = False  # /health or /v1/models did not answer in time: a busy or hung
    # head, whether it serves is not known (a refused port is a head not listening yet)

    @property
    def busy(self) -> bool:
        return bool((self.running or 0) + (self.waiting or 0))

    def as_dict(self) -> dict[str, Any]:
        return {k: json_value(v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class NodeHealth:
    node: str
    reachable: bool
    error: Text | None = None  # why unreachable / what failed, for the operator
    latency_ms: float | None = None
    workloads: list[Workload] = field(default_factory=list)
    engine: EngineStatus | None = None  # the first of ``engines``
    docker_error: Text | None = None
    """SSH answered but the node's docker did not (what it said): its containers are
    unknown."""
    engines: list[EngineStatus] = field(default_factory=list)
    """One per recipe whose head runs on this node, by recipe name."""

    def __post_init__(self) -> None:
        if self.engine is not None and not self.engines:
            object.__setattr__(self, "engines", [self.engine])
        elif self.engines and self.engine is None:
            object.__setattr__(self, "engine", self.engines[0])

    @property
    def known(self) -> bool:
        """What runs on the node is known: SSH and its docker both answered."""
        return self.reachable and self.docker_error is None

    @property
    def unanswered(self) -> Said | None:
        """Why what runs on the node is unknown: ``docker on node1 does not answer``,
        ``node1 does not answer``; None when it said (issue 29)."""
        if not self.reachable:
            return said(StatusSaid.NODE_SILENT, node=self.node)
        if self.docker_error is not None:
            return said(StatusSaid.DOCKER_SILENT, node=self.node)
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node, "reachable": self.reachable, "error": json_value(self.error),
            "docker_error": json_value(self.docker_error), "latency_ms": self.latency_ms,
            "workloads": [w.as_dict() for w in self.workloads],
            "engine": self.engine.as_dict() if self.engine else None,
            "engines": [e.as_dict() for e in self.engines],
        }


@dataclass(frozen=True)
class MetricsStatus:
    """One scrape of a service's Prometheus endpoint on one node."""

    name: str
    node: str
    port: int
    path: str
    up: bool
    samples: int = 0
    headline: dict[str, float] = field(default_factory=dict)  # a few figures worth showing
    error: Text | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "headline": dict(self.headline),
                "error": json_value(self.error)}


@dataclass(frozen=True)
class ServiceInstanceStatus:
    """One container of a service as found on its node, and whether it passes readiness."""

    node: str
    index: int
    container: str
    state: str  # docker's State, or "unreachable"
    exit_code: int | None = None
    ready: bool | None = None  # None: no probe, or nothing to probe (not running)
    readiness: str = ""  # what was probed: "tcp 2379", "http 8080/health", "log", ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ServiceStatus:
    """A service of one recipe, gathered from its instances' labels across the nodes."""

    name: str
    recipe: str
    type: str
    critical: bool
    terminal: bool
    instances: list[ServiceInstanceStatus]
    metrics: list[MetricsStatus] = field(default_factory=list)
    pool: str | None = None  # the pool it owns or rides on

    @property
    def state(self) -> str:
        """ready, starting, exited, failed (an instance exited non-zero), or partial."""
        states = {i.state for i in self.instances}
        if any(i.state != "running" and i.exit_code for i in self.instances):
            return "failed"
        if states == {"running"}:
            return "starting" if any(i.ready is False for i in self.instances) else "ready"
        if "running" not in states:
            return "exited"
        return "partial"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "recipe": self.recipe, "type": self.type,
                "critical": self.critical, "terminal": self.terminal, "state": self.state,
                "pool": self.pool,
                "instances": [i.as_dict() for i in self.instances],
                "metrics": [m.as_dict() for m in self.metrics]}


@dataclass(frozen=True)
class RouterStatus:
    """The cluster's router as its node says: its container and its /v1/models."""

    node: str
    address: str
    state: str  # the container's: running, exited, ..., "missing" (none there)
    models: list[str] = field(default_factory=list)
    ready: bool = False  # /v1/models answered
    error: Text | None = None  # the node or the router did not answer

    def as_dict(self) -> dict[str, Any]:
        return {"node": self.node, "address": self.address, "state": self.state,
                "ready": self.ready, "models": list(self.models),
                "error": json_value(self.error)}


@dataclass(frozen=True)
class ClusterHealth:
    cluster: str
    nodes: list[NodeHealth]
    checked_at: float  # time.time() when the check finished
    services: list[ServiceStatus] = field(default_factory=list)
    supervision: SupervisionStatus | None = None  # as the head (rank 0) keeps it
    router: RouterStatus | None = None  # None: the cluster has no [clusters.router]
    slurm: SlurmStatus | None = None  # None: the cluster has no [clusters.slurm]

    @property
    def workloads(self) -> list[Workload]:
        return [w for n in self.nodes for w in n.workloads]

    @property
    def engines(self) -> list[EngineStatus]:
        """Every head's API, one per recipe serving on the cluster."""
        return [e for n in self.nodes for e in n.engines]

    @property
    def serving(self) -> bool:
        """True when any head answers /v1/models or has requests in flight, or a recipe
        of services only (no engine) has every service ready."""
        return any(e.ready or e.busy for e in self.engines) or bool(self.services_ready)

    @property
    def unread(self) -> list[str]:
        """The nodes where what serves is not known: the node or its docker did not
        answer, or a head's API did not answer in time (never read as "not serving")."""
        return [n.node for n in self.nodes
                if not n.known or any(e.timed_out for e in n.engines)]

    @property
    def services_ready(self) -> list[str]:
        """The recipes of services only (no engine member on any node) whose services
        are all ready: what they run is up, as a serving head is."""
        engines = {w.recipe for w in self.workloads if w.role in ("head", "worker")}
        by_recipe: dict[str, list[ServiceStatus]] = {}
        for service in self.services:
            by_recipe.setdefault(service.recipe, []).append(service)
        return sorted(r for r, services in by_recipe.items() if r not in engines
                      and all(s.state == "ready" for s in services))

    @property
    def recipes(self) -> list[str]:
        """The recipes with a workload on the cluster, by name."""
        return sorted({w.recipe for w in self.workloads if w.recipe})

    @property
    def all_reachable(self) -> bool:
        return all(n.reachable for n in self.nodes)

    @property
    def all_known(self) -> bool:
        """Every node said what it runs (SSH and docker answered): only then is an
        empty list of workloads "nothing runs"."""
        return all(n.known for n in self.nodes)

    @property
    def unknown(self) -> Said | None:
        """``unknown: docker on node1 does not answer; node2 does not answer``: what runs on
        the cluster, when a node did not say; None when every node did."""
        why = [w for n in self.nodes if (w := n.unanswered) is not None]
        return said(StatusSaid.UNKNOWN, why=Items(why, "; ")) if why else None

    def as_dict(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "checked_at": self.checked_at,
                "serving": self.serving, "recipes": self.recipes,
                "nodes": [n.as_dict() for n in self.nodes],
                "services": [s.as_dict() for s in self.services],
                "supervision": self.supervision.as_dict() if self.supervision else None,
                "router": self.router.as_dict() if self.router else None,
                "slurm": self.slurm.as_dict() if self.slurm else None}


SOURCE_SEP = "/"
"""``node1/glm``: the source of a log line when several recipes run on the cluster."""


def log_source(node: str, recipe: str) -> str:
    return f"{node}{SOURCE_SEP}{recipe}"


def in_source(tag: str, wanted: str) -> bool:
    """A line tagged ``node1/glm`` is in the view of ``node1`` and of ``node1/glm``."""
    return tag == wanted or tag.startswith(wanted + SOURCE_SEP)


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
    why: Text | None = None
    """A gap's reason when it is known (``unreachable: ...``), as data: the logs pane and
    ``sparktui logs`` put it in words, so what the engine hands over is the same in every
    language. None: a plain marker (the stream dropped)."""
