"""The operator's ``config.toml``: clusters, fabric, SSH, Home Assistant, aliases."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from sparktui.config.base import (
    MAX_SECONDS,
    NonEmpty,
    Port,
    Seconds,
    SecondsOrZero,
    Secret,
    Strict,
)
from sparktui.config.hooks import Hook

DEFAULT_KNOWN_HOSTS = "~/.config/sparktui/known_hosts"
"""sparktui's own known_hosts on the operator's machine (``known_hosts_path``)."""


class Node(Strict):
    """One DGX Spark of a cluster."""

    name: NonEmpty
    """The node's name in sparktui (letters, digits, ``.``, ``_``, ``-``)."""
    ssh_ip: NonEmpty
    """The address sparktui reaches the node at over SSH."""
    ib_ip: str = ""
    """The node's address on the fast fabric (default: ``ssh_ip``)."""
    rank: Annotated[int, Field(ge=0)]
    """0 is the head; the ranks of a cluster are 0, 1, 2, ... without gaps."""
    entity: str | None = None
    """The Home Assistant switch (``switch.spark1``) that powers the node."""
    ssh_port: Port = 22
    local: bool = False
    """Run commands through a local subprocess instead of SSH (the built-in cluster)."""

    @property
    def fabric_ip(self) -> str:
        return self.ib_ip or self.ssh_ip


ROUTER_IMAGE = "lightseekorg/smg:1.13.0"
"""SMG, the release the tests are proven on (tests/hosts/testimage/router.py)."""


class Router(Strict):
    """``[clusters.router]``: one OpenAI address in front of every recipe serving on the
    cluster (the SMG router in a container; docs/services.md)."""

    port: Port = 4000
    node: NonEmpty | None = None
    """The node it runs on; default the cluster's head (rank 0)."""
    image: NonEmpty = ROUTER_IMAGE
    ready_timeout_seconds: Seconds = 300.0
    """How long serve and stop wait for the restarted router to answer."""
    api_key: Secret | None = None
    """The key the router's clients send (``Authorization: Bearer``), checked like the Home
    Assistant token and never shown; unset, sparktui makes one and keeps it 0600 in the
    operator's state folder (docs/services.md)."""


class Slurm(Strict):
    """``[clusters.slurm]``: a site's Sparks shared through Slurm: a serve is one job
    holding the nodes its plan needs (docs/slurm.md). The cluster's nodes are Slurm
    node names, with their fabric addresses as for any cluster."""

    partition: NonEmpty
    submit_host: str = ""
    """The login node ``sbatch`` runs on, reached over SSH like a node ("" : this machine)."""
    account: str | None = None
    qos: str | None = None
    reservation: str | None = None
    time_limit: str | None = None
    """Slurm's ``--time``: ``MINUTES``, ``HH:MM:SS``, ``D-HH``, ``D-HH:MM:SS`` ..."""
    allocate: Literal["plan", "any"] = "plan"
    """``plan``: the job names the plan's nodes (the first by rank, ``--nodelist``);
    ``any``: Slurm picks any N of the cluster's nodes, and the plan is resolved on them
    once the job runs (docs/slurm.md)."""


class Cluster(Strict):
    """``[[clusters]]``: nodes that serve together."""

    name: NonEmpty
    master_ib_ip: str = ""
    """The head's fabric address the workers join (default: the head's ``ib_ip``)."""
    nodes: Annotated[list[Node], Field(min_length=1)]
    extra_entities: list[str] = Field(default_factory=list)
    """More Home Assistant switches that ``power`` turns on and off with the cluster."""
    gpus_per_node: Annotated[int, Field(ge=1)] = 1
    router: Router | None = None
    slurm: Slurm | None = None
    """Set: Slurm allocates the nodes (docs/slurm.md); unset: sparktui reaches them over SSH."""

    @property
    def ranked(self) -> list[Node]:
        return sorted(self.nodes, key=lambda n: n.rank)

    @property
    def master_ip(self) -> str:
        return self.master_ib_ip or self.ranked[0].fabric_ip

    @property
    def router_node(self) -> Node | None:
        """Where the router runs (None: no router, or a node name the check refuses)."""
        if self.router is None:
            return None
        wanted = self.router.node or self.ranked[0].name
        return next((n for n in self.nodes if n.name == wanted), None)


class Nccl(Strict):
    """``[nccl."<cluster>"]``: the fabric's NCCL settings, passed to every engine."""

    ib_hca: str = ""
    """``NCCL_IB_HCA``."""
    socket_ifname: str = ""
    """``NCCL_SOCKET_IFNAME``."""
    ib_gid_index: Annotated[int, Field(ge=0)] | None = None
    """``NCCL_IB_GID_INDEX``."""
    ib_disable: Annotated[int, Field(ge=0, le=1)] = 0
    """``NCCL_IB_DISABLE``."""


class HomeAssistant(Strict):
    """``[home_assistant]``: the smart plugs behind ``power on|off``."""

    url: NonEmpty
    token: Secret
    """A long-lived access token; never shown, scrubbed from every message."""
    shutdown_delay_seconds: Annotated[int, Field(ge=0, le=86400)] = 30
    timeout_seconds: Seconds = 10.0
    """Per HTTP request."""
    confirm_timeout_seconds: Seconds = 30.0
    """How long an entity may take to report the state it was switched to."""


class BeforeServe(Strict):
    """``[before_serve."<cluster>"]``: hooks run before every serve on the cluster."""

    commands: list[Hook] = Field(default_factory=list)


class Config(Strict):
    """sparktui's ``config.toml``: clusters, fabric, SSH, Home Assistant, aliases."""

    ssh_user: NonEmpty = "root"
    ssh_key_path: str | None = None
    known_hosts_path: str | None = None
    home_dir: str | None = None
    """Remote home of ssh_user for ``~`` expansion; default /root or /home/<user>."""
    connect_timeout_seconds: Seconds = 10.0
    command_timeout_seconds: Seconds = 30.0
    health_timeout_seconds: Seconds = 5.0
    ready_timeout_seconds: Seconds = 1800.0
    """How long serve waits for the head's /v1/models (large models load for minutes)."""
    stop_grace_seconds: SecondsOrZero = 30.0
    """What ``docker stop -t`` gives an engine to exit before it is killed (a vLLM group
    in NCCL teardown can take all of it); stop waits that long plus a margin."""
    telemetry_interval_seconds: Annotated[float, Field(ge=0.2, le=MAX_SECONDS)] = 2.0
    """How often the dashboard and ``top`` sample every node and the head's /metrics."""
    telemetry_stall_seconds: Seconds = 300.0
    """Alert when no token is generated for this long while requests wait."""
    supervise_interval_seconds: Annotated[float, Field(ge=0.2, le=MAX_SECONDS)] = 10.0
    """How often ``supervise`` checks its group (containers, /health and /v1/models, a
    stall); ``--interval`` overrides it."""
    supervise_failure_checks: Annotated[int, Field(ge=1, le=100)] = 2
    """Consecutive failed checks that make a failure: one bad check is a blip."""
    supervise_max_restarts: Annotated[int, Field(ge=1, le=1000)] = 3
    """At most this many restarts in ``supervise_window_seconds``; then it gives up."""
    supervise_window_seconds: Seconds = 1800.0
    supervise_backoff_seconds: SecondsOrZero = 10.0
    """The wait before the second restart of a window; it doubles for each further one
    (the first restart is at once)."""
    supervise_backoff_max_seconds: SecondsOrZero = 300.0
    supervise_memory_wait_seconds: SecondsOrZero = 120.0
    """Before a restart: how long each node's available memory may take to come back to
    what the recipe needs (its engine's share of the node, the fit's figure) once the
    group is stopped; then the supervisor gives up ("reboot it") instead of restarting
    into an out-of-memory (a crashed engine's unified memory is not always given back)."""
    supervise_lease_seconds: Annotated[float, Field(ge=1, le=MAX_SECONDS)] = 60.0
    """A supervisor whose heartbeat is older than this is dead: another may take over."""
    supervise_image: NonEmpty = "sparktui-supervisor:latest"
    """The image ``supervise --on-node`` runs on the head: sparktui inside, its
    entrypoint ``sparktui`` (``supervise --dockerfile`` prints its Dockerfile)."""
    supervise_key_path: NonEmpty = "~/.ssh/id_ed25519"
    """On the head: the private key the on-node supervisor reaches every node with
    (``~`` is ssh_user's home there); it must already be authorized on every node."""
    power_off_command: Annotated[list[str], Field(min_length=1)] | None = None
    """argv run on each node by ``power off``; default ``shutdown -h now`` (through
    ``sudo -n`` unless ssh_user is root)."""
    shutdown_timeout_seconds: Seconds = 300.0
    """How long ``power off`` waits for a node to stop answering SSH."""
    boot_timeout_seconds: Seconds = 600.0
    """How long ``power on`` waits for a node to answer SSH again."""
    clusters: list[Cluster] = Field(default_factory=list)
    nccl: dict[str, Nccl] = Field(default_factory=dict)
    home_assistant: HomeAssistant | None = None
    exec_aliases: dict[str, str] = Field(default_factory=dict)
    mount_aliases: dict[str, str] = Field(default_factory=dict)
    """Host folders by name (``hf_cache``), for recipes' ``extra_mounts`` ``alias``."""
    before_serve: dict[str, BeforeServe] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _defaults_from_user(self) -> Config:
        """Defaults that follow ``ssh_user``; set as defaults (not in ``model_fields_set``)."""
        if self.home_dir is None:
            home = "/root" if self.ssh_user == "root" else f"/home/{self.ssh_user}"
            object.__setattr__(self, "home_dir", home)
        if self.power_off_command is None:
            sudo = [] if self.ssh_user == "root" else ["sudo", "-n"]
            object.__setattr__(self, "power_off_command", [*sudo, "shutdown", "-h", "now"])
        return self

    def cluster(self, name: str) -> Cluster:
        return next(c for c in self.clusters if c.name == name)

    def expand_home(self, path: str) -> str:
        """``~`` means ssh_user's home on the node, not the operator's."""
        if path == "~" or path.startswith("~/"):
            return f"{self.home_dir}{path[1:]}"
        return path

    @property
    def hf_cache_host(self) -> str:
        return self.expand_home(self.mount_aliases.get("hf_cache", "~/.cache/huggingface"))

    @property
    def known_hosts_file(self) -> str:
        """``known_hosts_path``, else sparktui's default (``~`` is the operator's home)."""
        return self.known_hosts_path or DEFAULT_KNOWN_HOSTS
