"""The operator's ``config.toml``: clusters, fabric, SSH, Home Assistant, aliases."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from sparktui.config.hooks import HookEntry

OnFailure = Literal["abort", "warn"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Node(Strict):
    name: str = Field(min_length=1)
    ssh_ip: str = Field(min_length=1)
    ib_ip: str = ""
    rank: int = Field(ge=0)
    entity: str | None = None
    ssh_port: int = Field(default=22, ge=1, le=65535)
    local: bool = False
    """Run commands through a local subprocess instead of SSH (the built-in cluster)."""

    @property
    def fabric_ip(self) -> str:
        return self.ib_ip or self.ssh_ip


class Cluster(Strict):
    name: str = Field(min_length=1)
    master_ib_ip: str = ""
    nodes: list[Node] = Field(min_length=1)
    extra_entities: list[str] = []
    gpus_per_node: int = Field(default=1, ge=1)

    @property
    def ranked(self) -> list[Node]:
        return sorted(self.nodes, key=lambda n: n.rank)

    @property
    def master_ip(self) -> str:
        return self.master_ib_ip or self.ranked[0].fabric_ip


class Nccl(Strict):
    ib_hca: str = ""
    socket_ifname: str = ""
    ib_gid_index: int | None = None
    ib_disable: int = Field(default=0, ge=0, le=1)


class HomeAssistant(Strict):
    url: str = Field(min_length=1)
    token: SecretStr
    shutdown_delay_seconds: int = Field(default=30, ge=0)
    timeout_seconds: float = Field(default=10.0, gt=0)
    """Per HTTP request."""
    confirm_timeout_seconds: float = Field(default=30.0, gt=0)
    """How long an entity may take to report the state it was switched to."""


class BeforeServe(Strict):
    commands: list[HookEntry] = []


class Config(Strict):
    ssh_user: str = Field(default="root", min_length=1)
    ssh_key_path: str | None = None
    known_hosts_path: str | None = None
    home_dir: str | None = None
    """Remote home of ssh_user for ``~`` expansion; default /root or /home/<user>."""
    connect_timeout_seconds: float = Field(default=10.0, gt=0)
    command_timeout_seconds: float = Field(default=30.0, gt=0)
    health_timeout_seconds: float = Field(default=5.0, gt=0)
    ready_timeout_seconds: float = Field(default=1800.0, gt=0)
    """How long serve waits for the head's /v1/models (large models load for minutes)."""
    telemetry_interval_seconds: float = Field(default=2.0, ge=0.2)
    """How often the dashboard and ``top`` sample every node and the head's /metrics."""
    telemetry_stall_seconds: float = Field(default=300.0, gt=0)
    """Alert when no token is generated for this long while requests wait."""
    power_off_command: list[str] | None = Field(default=None, min_length=1)
    """argv run on each node by ``power off``; default ``shutdown -h now`` (through
    ``sudo -n`` unless ssh_user is root)."""
    shutdown_timeout_seconds: float = Field(default=300.0, gt=0)
    """How long ``power off`` waits for a node to stop answering SSH."""
    boot_timeout_seconds: float = Field(default=600.0, gt=0)
    """How long ``power on`` waits for a node to answer SSH again."""
    clusters: list[Cluster] = []
    nccl: dict[str, Nccl] = {}
    home_assistant: HomeAssistant | None = None
    exec_aliases: dict[str, str] = {}
    mount_aliases: dict[str, str] = {}
    before_serve: dict[str, BeforeServe] = {}

    @model_validator(mode="after")
    def _default_home(self) -> Config:
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
