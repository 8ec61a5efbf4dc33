"""The launch plan: everything serve will do, computed before anything runs.

Plain frozen dataclasses (not validated models) so the headless ``plan`` path stays fast.
``as_dict`` is the JSON contract documented in docs/plan-format.md: keys may be
added, never renamed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sparktui.config.roles import HEAD, Role
from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.service_model import ServicePlan

if TYPE_CHECKING:
    from sparktui.plan.router import RouterPlan

MEM_SHARE_LABEL = "mem_share"
"""The label (``sparktui.mem_share``; tmux: ``SPARKTUI_MEM_SHARE``) of the share of its node's
memory an engine member claims: what serve counts of a recipe already running."""


@dataclass(frozen=True)
class HookStep:
    kind: str  # "command" (raw shell) or "script" (built-in alias)
    run: str
    on_failure: str  # "abort" or "warn"
    origin: str = "recipe"  # "cluster" for [before_serve."<cluster>"]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "run": self.run, "on_failure": self.on_failure,
                "origin": self.origin}


@dataclass(frozen=True)
class MountPlan:
    host: str
    container: str
    read_only: bool = False

    @property
    def volume(self) -> str:
        return f"{self.host}:{self.container}" + (":ro" if self.read_only else "")

    def as_dict(self) -> dict[str, Any]:
        return {"host": self.host, "container": self.container, "read_only": self.read_only}


@dataclass(frozen=True)
class HfRef:
    """A recipe mount ``{repo, subfolder, container}``: ``{{container}}`` in args/env."""

    placeholder: str
    repo: str
    subfolder: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"placeholder": self.placeholder, "repo": self.repo, "subfolder": self.subfolder}


@dataclass(frozen=True)
class NodePlan:
    name: str
    ssh_ip: str
    ssh_port: int
    ib_ip: str
    rank: int
    role: Role
    local: bool
    container: str
    env: dict[str, str]
    mounts: list[MountPlan]
    before_serve: list[HookStep]
    launch: list[str]
    after_stop: list[HookStep]

    @property
    def is_head(self) -> bool:
        return self.role == HEAD

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ssh_ip": self.ssh_ip,
            "ssh_port": self.ssh_port,
            "ib_ip": self.ib_ip,
            "rank": self.rank,
            "role": self.role,
            "local": self.local,
            "container": self.container,
            "env": dict(self.env),
            "mounts": [m.as_dict() for m in self.mounts],
            "before_serve": [h.as_dict() for h in self.before_serve],
            "launch": list(self.launch),
            "after_stop": [h.as_dict() for h in self.after_stop],
        }


@dataclass(frozen=True)
class SlurmPlan:
    """The cluster's ``[clusters.slurm]``: where and how its job is submitted."""

    partition: str
    submit_host: str = ""
    account: str | None = None
    qos: str | None = None
    reservation: str | None = None
    time_limit: str | None = None
    stop_grace_seconds: float = 30.0
    """What the job's cleanup gives each engine after SIGTERM, as a stop over SSH does."""
    allocate: str = "plan"
    """``any``: the serve's plan is resolved on the nodes Slurm allocated (``plan.anywhere``)."""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class LaunchPlan:
    recipe: str
    cluster: str
    engine: str
    runtime: RuntimeName
    port: int
    model: str
    image: str
    ssh_user: str
    nodes: list[NodePlan]
    start_order: list[str]
    hf_refs: list[HfRef] = field(default_factory=list)
    services: list[ServicePlan] = field(default_factory=list)
    frontend: str = "engine"  # "engine" | "dynamo" | "none" (services only: no engine nodes)
    router: RouterPlan | None = None  # the cluster's [clusters.router], which serve updates
    slurm: SlurmPlan | None = None  # the cluster's nodes are allocated by Slurm
    image_digest: str = ""
    """The digest the image's tag resolved to on the nodes at the recipe's last serve or
    pull on this cluster, as this machine kept it ("": none kept, or a pinned image)."""

    @property
    def head(self) -> NodePlan:
        return next(n for n in self.nodes if n.is_head)

    def node(self, name: str) -> NodePlan:
        return next(n for n in self.nodes if n.name == name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "recipe": self.recipe,
            "cluster": self.cluster,
            "engine": self.engine,
            "runtime": self.runtime,
            "port": self.port,
            "model": self.model,
            "image": self.image,
            "image_digest": self.image_digest or None,
            "ssh_user": self.ssh_user,
            "nodes": [n.as_dict() for n in self.nodes],
            "start_order": list(self.start_order),
            "hf_refs": [r.as_dict() for r in self.hf_refs],
            "services": [s.as_dict() for s in self.services],
            "frontend": self.frontend,
            **({"router": self.router.as_dict()} if self.router is not None else {}),
            **({"slurm": self.slurm.as_dict()} if self.slurm is not None else {}),
        }
