"""A recipe's ``[[services]]`` and ``[frontend]``: processes launched next to the engine.

Only the shape is checked here (strict, unknown keys refused) plus the rules that
need nothing but the recipe (``service_checks``). What a ``type`` means, its
defaults and its ``options`` belong to the kinds registry in ``plan/services``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from sparktui.config.base import NonEmpty, Port, Seconds, Strict
from sparktui.config.runtime_name import RuntimeName

PlacementNodes = Literal["head", "workers", "compute", "all", "dedicated"]
Phase = Literal["infra", "before_workers", "after_frontend"]


class Placement(Strict):
    """Where a service runs: a node set, or ``pool = "<owner>"`` to ride on a pool."""

    node: PlacementNodes | None = None
    pool: NonEmpty | None = None
    """The service that owns the pool of nodes this one runs on."""


class ReadinessSpec(Strict):
    """``{port}`` (tcp), ``{port, path}`` (http), ``{log}`` (regex) or ``{kind = "none"}``.

    ``kind`` may be left out: it follows from the keys given. Only ``timeout``
    keeps the kind's own probe and changes how long it may take.
    """

    kind: Literal["tcp", "http", "log", "none"] | None = None
    port: Port | None = None
    path: NonEmpty | None = None
    """The HTTP path that answers 2xx when the service is ready."""
    log: NonEmpty | None = None
    """A regular expression that a line of the service's log matches when it is ready."""
    timeout: Seconds | None = None

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


class MetricsSpec(Strict):
    """A Prometheus scrape annotation: one target per node (``first``: the first only)."""

    port: Port
    path: NonEmpty = "/metrics"
    nodes: Literal["all", "first"] = "all"
    name: NonEmpty | None = None


class ServiceMount(Strict):
    host: NonEmpty
    container: NonEmpty
    read_only: bool = False


def _one_or_many(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value


MetricsList = Annotated[
    list[MetricsSpec] | None,
    BeforeValidator(_one_or_many, json_schema_input_type=MetricsSpec | list[MetricsSpec]),
]
"""One ``[services.metrics]`` table or an array of them."""


class ServiceEntry(Strict):
    """``[[services]]``: a process launched next to the engine (docs/services.md)."""

    name: NonEmpty
    type: NonEmpty = "generic"
    """The service's kind (``generic``, ``etcd``, ``nats``, ``dynamo-frontend``, ...)."""
    image: NonEmpty | None = None
    """Container image; default: the kind's, else the recipe's ``docker_image``."""
    command: list[str] | None = None
    """The argv the container runs (its first word becomes the entrypoint)."""
    args: list[str] = Field(default_factory=list)
    """Appended to the command (the kind's default or the one given here)."""
    env: dict[str, str] = Field(default_factory=dict)
    placement: Placement = Field(default_factory=Placement)
    nodes: Annotated[int, Field(ge=1)] | None = None
    """Own a pool of this many whole nodes, carved after the engine's nodes."""
    readiness: ReadinessSpec | None = None
    metrics: MetricsList = None
    options: dict[str, Any] = Field(default_factory=dict)
    """The kind's own settings."""
    terminal: bool = False
    critical: bool | None = None
    enabled: bool = True
    start: Phase | None = None
    """When it starts: with the infrastructure, before the workers, after the frontend."""
    gpus: bool | None = None
    runtime: RuntimeName = "docker"
    mounts: list[ServiceMount] = Field(default_factory=list)


class Frontend(Strict):
    """Who serves the API: the head's own server, a Dynamo frontend, or nobody."""

    type: Literal["engine", "dynamo", "none"] | None = None
    port: Port | None = None
    """The Dynamo frontend's HTTP port (default 8000)."""
    image: NonEmpty | None = None
    """The Dynamo frontend's image (default: the recipe's docker_image)."""
