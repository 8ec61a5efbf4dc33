"""A recipe: ``recipes/<name>/recipe.toml``, one model served one way."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sparktui.config.hooks import HookEntry
from sparktui.config.services import Frontend, ServiceEntry


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Mount(_Strict):
    """Either a bind mount (alias/host -> container) or an HF repo reference."""

    alias: str | None = None
    host: str | None = None
    container: str = Field(min_length=1)
    read_only: bool | None = None
    env: str | None = None
    repo: str | None = None
    subfolder: str | None = None

    @property
    def is_hf_ref(self) -> bool:
        return self.repo is not None


class Mods(_Strict):
    commands: list[HookEntry] = []


class Recipe(_Strict):
    name: str = ""
    """Filled from the folder name; a recipe file may not set it."""
    description: str = ""
    engine: Literal["vllm", "sglang"] | None = None
    """None: a services-only recipe (check_recipe requires image and model otherwise)."""
    docker_image: str = Field(default="", min_length=1)
    model: str = Field(default="", min_length=1)
    port: int = Field(default=30000, ge=1, le=65535)
    required_nodes: int | None = Field(default=None, ge=1)
    tensor_parallel_size: int = Field(default=1, ge=1)
    pipeline_parallel_size: int = Field(default=1, ge=0)
    distributed_backend: Literal["mp", "ray"] = "mp"
    shm_size: str = ""
    runtime: Literal["docker", "tmux"] = "docker"
    entrypoint: list[str] = []
    before_serve: list[HookEntry] = []
    after_stop: list[HookEntry] = []
    args: list[str] = []
    extra_mounts: list[Mount] = []
    mods: Mods | None = None
    env: dict[str, str] = {}
    frontend: Frontend = Frontend()
    mooncake_kv_store: bool = False
    telemetry: bool = False
    services: list[ServiceEntry] = []

    @property
    def has_engine(self) -> bool:
        return self.engine is not None

    @property
    def frontend_type(self) -> str:
        """``[frontend] type``, defaulting to the engine's server (none without an engine)."""
        if self.frontend.type is not None:
            return self.frontend.type
        return "engine" if self.has_engine else "none"
