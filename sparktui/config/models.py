"""The operator's ``config.toml``: clusters, fabric, SSH, Home Assistant, aliases."""

from __future__ import annotations

from sparktui.config.hooks import HookEntry
from sparktui.config.schema import (
    Model,
    Secret,
    array,
    boolean,
    duration,
    field,
    integer,
    nested,
    nullable,
    secret,
    table,
    text,
)

DEFAULT_KNOWN_HOSTS = "~/.config/sparktui/known_hosts"
"""sparktui's own known_hosts on the operator's machine (``known_hosts_path``)."""


class Node(Model):
    name: str = field(text(min_length=1))
    ssh_ip: str = field(text(min_length=1))
    ib_ip: str = field(text(), "")
    rank: int = field(integer(ge=0))
    entity: str | None = field(nullable(text()), None)
    ssh_port: int = field(integer(ge=1, le=65535), 22)
    local: bool = field(boolean(), False)
    """Run commands through a local subprocess instead of SSH (the built-in cluster)."""

    @property
    def fabric_ip(self) -> str:
        return self.ib_ip or self.ssh_ip


ROUTER_IMAGE = "lightseekorg/smg:1.13.0"
"""SMG, the release the tests are proven on (tests/hosts/testimage/router.py)."""


class Router(Model):
    """``[clusters.router]``: one OpenAI address in front of every recipe serving on the
    cluster (the SMG router in a container; docs/services.md)."""

    port: int = field(integer(ge=1, le=65535), 4000)
    node: str | None = field(nullable(text(min_length=1)), None)
    """The node it runs on; default the cluster's head (rank 0)."""
    image: str = field(text(min_length=1), ROUTER_IMAGE)
    ready_timeout_seconds: float = field(duration(), 300.0)
    """How long serve and stop wait for the restarted router to answer."""
    api_key: Secret | None = field(nullable(secret()), None)
    """The key the router's clients send (``Authorization: Bearer``), checked like the Home
    Assistant token and never shown; unset, sparktui makes one and keeps it 0600 in the
    operator's state folder (docs/services.md)."""


class Cluster(Model):
    name: str = field(text(min_length=1))
    master_ib_ip: str = field(text(), "")
    nodes: list[Node] = field(array(nested(Node), min_length=1))
    extra_entities: list[str] = field(array(text()), factory=list)
    gpus_per_node: int = field(integer(ge=1), 1)
    router: Router | None = field(nullable(nested(Router)), None)

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


class Nccl(Model):
    ib_hca: str = field(text(), "")
    socket_ifname: str = field(text(), "")
    ib_gid_index: int | None = field(nullable(integer(ge=0)), None)
    ib_disable: int = field(integer(ge=0, le=1), 0)


class HomeAssistant(Model):
    url: str = field(text(min_length=1))
    token: Secret = field(secret())
    shutdown_delay_seconds: int = field(integer(ge=0, le=86400), 30)
    timeout_seconds: float = field(duration(), 10.0)
    """Per HTTP request."""
    confirm_timeout_seconds: float = field(duration(), 30.0)
    """How long an entity may take to report the state it was switched to."""


class BeforeServe(Model):
    commands: list[HookEntry] = field(array(nested(HookEntry)), factory=list)


class Config(Model):
    ssh_user: str = field(text(min_length=1), "root")
    ssh_key_path: str | None = field(nullable(text()), None)
    known_hosts_path: str | None = field(nullable(text()), None)
    home_dir: str | None = field(nullable(text()), None)
    """Remote home of ssh_user for ``~`` expansion; default /root or /home/<user>."""
    connect_timeout_seconds: float = field(duration(), 10.0)
    command_timeout_seconds: float = field(duration(), 30.0)
    health_timeout_seconds: float = field(duration(), 5.0)
    ready_timeout_seconds: float = field(duration(), 1800.0)
    """How long serve waits for the head's /v1/models (large models load for minutes)."""
    stop_grace_seconds: float = field(duration(ge=0), 30.0)
    """What ``docker stop -t`` gives an engine to exit before it is killed (a vLLM group
    in NCCL teardown can take all of it); stop waits that long plus a margin."""
    telemetry_interval_seconds: float = field(duration(ge=0.2), 2.0)
    """How often the dashboard and ``top`` sample every node and the head's /metrics."""
    telemetry_stall_seconds: float = field(duration(), 300.0)
    """Alert when no token is generated for this long while requests wait."""
    supervise_interval_seconds: float = field(duration(ge=0.2), 10.0)
    """How often ``supervise`` checks its group (containers, /health and /v1/models, a
    stall); ``--interval`` overrides it."""
    supervise_failure_checks: int = field(integer(ge=1, le=100), 2)
    """Consecutive failed checks that make a failure: one bad check is a blip."""
    supervise_max_restarts: int = field(integer(ge=1, le=1000), 3)
    """At most this many restarts in ``supervise_window_seconds``; then it gives up."""
    supervise_window_seconds: float = field(duration(), 1800.0)
    supervise_backoff_seconds: float = field(duration(ge=0), 10.0)
    """The wait before the second restart of a window; it doubles for each further one
    (the first restart is at once)."""
    supervise_backoff_max_seconds: float = field(duration(ge=0), 300.0)
    supervise_memory_wait_seconds: float = field(duration(ge=0), 120.0)
    """Before a restart: how long each node's available memory may take to come back to
    what the recipe needs (its engine's share of the node, the fit's figure) once the
    group is stopped; then the supervisor gives up ("reboot it") instead of restarting
    into an out-of-memory (a crashed engine's unified memory is not always given back)."""
    supervise_lease_seconds: float = field(duration(ge=1), 60.0)
    """A supervisor whose heartbeat is older than this is dead: another may take over."""
    supervise_image: str = field(text(min_length=1), "sparktui-supervisor:latest")
    """The image ``supervise --on-node`` runs on the head: sparktui inside, its
    entrypoint ``sparktui`` (``supervise --dockerfile`` prints its Dockerfile)."""
    supervise_key_path: str = field(text(min_length=1), "~/.ssh/id_ed25519")
    """On the head: the private key the on-node supervisor reaches every node with
    (``~`` is ssh_user's home there); it must already be authorized on every node."""
    power_off_command: list[str] | None = field(nullable(array(text(), min_length=1)), None)
    """argv run on each node by ``power off``; default ``shutdown -h now`` (through
    ``sudo -n`` unless ssh_user is root)."""
    shutdown_timeout_seconds: float = field(duration(), 300.0)
    """How long ``power off`` waits for a node to stop answering SSH."""
    boot_timeout_seconds: float = field(duration(), 600.0)
    """How long ``power on`` waits for a node to answer SSH again."""
    clusters: list[Cluster] = field(array(nested(Cluster)), factory=list)
    nccl: dict[str, Nccl] = field(table(nested(Nccl)), factory=dict)
    home_assistant: HomeAssistant | None = field(nullable(nested(HomeAssistant)), None)
    exec_aliases: dict[str, str] = field(table(text()), factory=dict)
    mount_aliases: dict[str, str] = field(table(text()), factory=dict)
    before_serve: dict[str, BeforeServe] = field(table(nested(BeforeServe)), factory=dict)

    def _after(self) -> Config:
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
