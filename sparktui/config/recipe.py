"""A recipe: ``recipes/<name>/recipe.toml``, one model served one way."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sparktui.config.base import NonEmpty, Port, Strict
from sparktui.config.hooks import Hook
from sparktui.config.runtime_name import RuntimeName
from sparktui.config.services import Frontend, ServiceEntry


class Mount(Strict):
    """Either a bind mount (alias/host -> container) or an HF repo reference."""

    alias: str | None = None
    """A ``mount_aliases`` name of the config: its host folder."""
    host: str | None = None
    """A host folder (absolute, or ``~/`` for ssh_user's home on the node)."""
    container: NonEmpty
    """Where it appears in the container; for an HF repo, the placeholder's name."""
    read_only: bool | None = None
    env: str | None = None
    """An environment variable set to the container path."""
    repo: str | None = None
    """An HF repo (``org/name``) whose snapshot is mounted; ``{{container}}`` in args."""
    subfolder: str | None = None

    @property
    def is_hf_ref(self) -> bool:
        return self.repo is not None


class Mods(Strict):
    """``[mods]``: commands run in the container before the entrypoint."""

    commands: list[Hook] = Field(default_factory=list)


class Recipe(Strict):
    """A recipe: ``recipes/<name>/recipe.toml``, one model served one way."""

    name: str = ""
    """Filled from the folder name; a recipe file may not set it."""
    description: str = ""
    engine: Literal["vllm", "sglang"] | None = None
    """None: a services-only recipe (check_recipe requires image and model otherwise)."""
    docker_image: NonEmpty = ""
    """The engine's image (required with an engine)."""
    model: NonEmpty = ""
    """The model served (an HF repo or a path in the container; required with an engine)."""
    port: Port = 30000
    """The head's API port."""
    required_nodes: Annotated[int, Field(ge=1)] | None = None
    """Nodes the recipe needs (default: from the parallel sizes and the cluster's GPUs)."""
    tensor_parallel_size: Annotated[int, Field(ge=1)] = 1
    pipeline_parallel_size: Annotated[int, Field(ge=0)] = 1
    distributed_backend: Literal["mp", "ray"] = "mp"
    shm_size: str = ""
    """docker's ``--shm-size`` (``16g``, ``64gb``)."""
    runtime: RuntimeName = "docker"
    """Where the engine runs on each node: a container, or a tmux session."""
    entrypoint: list[str] = Field(default_factory=list)
    before_serve: list[Hook] = Field(default_factory=list)
    """Hooks run on every node before the engine starts."""
    after_stop: list[Hook] = Field(default_factory=list)
    """Hooks run on every node after the engine stopped."""
    args: list[str] = Field(default_factory=list)
    """The engine's arguments, after the entrypoint."""
    extra_mounts: list[Mount] = Field(default_factory=list)
    mods: Mods | None = None
    env: dict[str, str] = Field(default_factory=dict)
    """The engine container's environment."""
    frontend: Frontend = Field(default_factory=Frontend)
    mooncake_kv_store: bool = False
    telemetry: bool = False
    """Run the DCGM and node exporters next to the engine."""
    engine_metrics: bool = True
    """The engine publishes /metrics (SGLang only does with --enable-metrics)."""
    services: list[ServiceEntry] = Field(default_factory=list)

    @property
    def has_engine(self) -> bool:
        return self.engine is not None

    @property
    def frontend_type(self) -> str:
        """``[frontend] type``, defaulting to the engine's server (none without an engine)."""
        if self.frontend.type is not None:
            return self.frontend.type
        return "engine" if self.has_engine else "none"
