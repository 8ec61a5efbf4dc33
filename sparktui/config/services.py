"""A recipe's ``[[services]]`` and ``[frontend]``: processes launched next to the engine.

Only the shape is checked here (pydantic, strict, unknown keys refused) plus the
rules that need nothing but the recipe (``service_checks``). What a ``type`` means,
its defaults and its ``options`` belong to the kinds registry in ``plan/services``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PlacementNode = Literal["head", "workers", "compute", "all", "dedicated"]
Phase = Literal["infra", "before_workers", "after_frontend"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Placement(_Strict):
    """Where a service runs: a node set, or ``pool = "<owner>"`` to ride on a pool."""

    node: PlacementNode | None = None
    pool: str | None = Field(default=None, min_length=1)


class ReadinessSpec(_Strict):
    """``{port}`` (tcp), ``{port, path}`` (http), ``{log}`` (regex) or ``{kind = "none"}``.

    ``kind`` may be left out: it follows from the keys given. Only ``timeout``
    keeps the kind's own probe and changes how long it may take.
    """

    kind: Literal["tcp", "http", "log", "none"] | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    path: str | None = Field(default=None, min_length=1)
    log: str | None = Field(default=None, min_length=1)
    timeout: float | None = Field(default=None, gt=0)

    @property
    def probe(self) -> str | None:
        """The probe these keys describe, or None when only the timeout is given."""
        if self.kind is not None:
            return self.kind
        if self.log is not None:
            return "log"
        if self.path is not None:
            return "http"
        if self.port is not None:
            return "tcp"
        return None


class MetricsSpec(_Strict):
    """A Prometheus scrape annotation: one target per node (``first``: the first only)."""

    port: int = Field(ge=1, le=65535)
    path: str = Field(default="/metrics", min_length=1)
    nodes: Literal["all", "first"] = "all"
    name: str | None = Field(default=None, min_length=1)


class ServiceMount(_Strict):
    host: str = Field(min_length=1)
    container: str = Field(min_length=1)
    read_only: bool = False


class ServiceEntry(_Strict):
    name: str = Field(min_length=1)
    type: str = Field(default="generic", min_length=1)
    image: str | None = Field(default=None, min_length=1)
    """Container image; default: the kind's, else the recipe's ``docker_image``."""
    command: list[str] | None = None
    """The argv the container runs (its first word becomes the entrypoint)."""
    args: list[str] = []
    """Appended to the command (the kind's default or the one given here)."""
    env: dict[str, str] = {}
    placement: Placement = Placement()
    nodes: int | None = Field(default=None, ge=1)
    """Own a pool of this many whole nodes, carved after the engine's nodes."""
    readiness: ReadinessSpec | None = None
    metrics: list[MetricsSpec] | None = None
    options: dict[str, Any] = {}
    terminal: bool = False
    critical: bool | None = None
    enabled: bool = True
    start: Phase | None = None
    gpus: bool | None = None
    runtime: Literal["docker", "tmux"] = "docker"
    mounts: list[ServiceMount] = []

    @field_validator("metrics", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value


class Frontend(_Strict):
    """Who serves the API: the head's own server, a Dynamo frontend, or nobody."""

    type: Literal["engine", "dynamo", "none"] | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    """The Dynamo frontend's HTTP port (default 8000)."""
    image: str | None = Field(default=None, min_length=1)
    """The Dynamo frontend's image (default: the recipe's docker_image)."""
