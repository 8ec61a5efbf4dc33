"""A recipe: ``recipes/<name>/recipe.toml``, one model served one way."""

from __future__ import annotations

from sparktui.config.hooks import HookEntry
from sparktui.config.schema import (
    Model,
    array,
    boolean,
    field,
    integer,
    literal,
    nested,
    nullable,
    table,
    text,
)
from sparktui.config.services import Frontend, ServiceEntry


class Mount(Model):
    """Either a bind mount (alias/host -> container) or an HF repo reference."""

    alias: str | None = field(nullable(text()), None)
    host: str | None = field(nullable(text()), None)
    container: str = field(text(min_length=1))
    read_only: bool | None = field(nullable(boolean()), None)
    env: str | None = field(nullable(text()), None)
    repo: str | None = field(nullable(text()), None)
    subfolder: str | None = field(nullable(text()), None)

    @property
    def is_hf_ref(self) -> bool:
        return self.repo is not None


def _hooks() -> dict:
    return array(nested(HookEntry))


class Mods(Model):
    commands: list[HookEntry] = field(_hooks(), factory=list)


class Recipe(Model):
    name: str = field(text(), "")
    """Filled from the folder name; a recipe file may not set it."""
    description: str = field(text(), "")
    engine: str | None = field(nullable(literal("vllm", "sglang")), None)
    """None: a services-only recipe (check_recipe requires image and model otherwise)."""
    docker_image: str = field(text(min_length=1), "")
    model: str = field(text(min_length=1), "")
    port: int = field(integer(ge=1, le=65535), 30000)
    required_nodes: int | None = field(nullable(integer(ge=1)), None)
    tensor_parallel_size: int = field(integer(ge=1), 1)
    pipeline_parallel_size: int = field(integer(ge=0), 1)
    distributed_backend: str = field(literal("mp", "ray"), "mp")
    shm_size: str = field(text(), "")
    runtime: str = field(literal("docker", "tmux"), "docker")
    entrypoint: list[str] = field(array(text()), factory=list)
    before_serve: list[HookEntry] = field(_hooks(), factory=list)
    after_stop: list[HookEntry] = field(_hooks(), factory=list)
    args: list[str] = field(array(text()), factory=list)
    extra_mounts: list[Mount] = field(array(nested(Mount)), factory=list)
    mods: Mods | None = field(nullable(nested(Mods)), None)
    env: dict[str, str] = field(table(text()), factory=dict)
    frontend: Frontend = field(nested(Frontend), factory=Frontend)
    mooncake_kv_store: bool = field(boolean(), False)
    telemetry: bool = field(boolean(), False)
    engine_metrics: bool = field(boolean(), True)
    """The engine publishes /metrics (SGLang only does with --enable-metrics)."""
    services: list[ServiceEntry] = field(array(nested(ServiceEntry)), factory=list)

    @property
    def has_engine(self) -> bool:
        return self.engine is not None

    @property
    def frontend_type(self) -> str:
        """``[frontend] type``, defaulting to the engine's server (none without an engine)."""
        if self.frontend.type is not None:
            return self.frontend.type
        return "engine" if self.has_engine else "none"
