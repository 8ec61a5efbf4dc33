"""A recipe's ``[[services]]`` and ``[frontend]``: processes launched next to the engine.

Only the shape is checked here (strict, unknown keys refused) plus the rules that
need nothing but the recipe (``service_checks``). What a ``type`` means, its
defaults and its ``options`` belong to the kinds registry in ``plan/services``.
"""

from __future__ import annotations

from typing import Any

from sparktui.config.schema import (
    Model,
    anything,
    array,
    before,
    boolean,
    duration,
    field,
    integer,
    literal,
    nested,
    nullable,
    table,
    text,
)

PLACEMENT_NODES = ("head", "workers", "compute", "all", "dedicated")
PHASES = ("infra", "before_workers", "after_frontend")


def _port() -> dict:
    return integer(ge=1, le=65535)


class Placement(Model):
    """Where a service runs: a node set, or ``pool = "<owner>"`` to ride on a pool."""

    node: str | None = field(nullable(literal(*PLACEMENT_NODES)), None)
    pool: str | None = field(nullable(text(min_length=1)), None)


class ReadinessSpec(Model):
    """``{port}`` (tcp), ``{port, path}`` (http), ``{log}`` (regex) or ``{kind = "none"}``.

    ``kind`` may be left out: it follows from the keys given. Only ``timeout``
    keeps the kind's own probe and changes how long it may take.
    """

    kind: str | None = field(nullable(literal("tcp", "http", "log", "none")), None)
    port: int | None = field(nullable(_port()), None)
    path: str | None = field(nullable(text(min_length=1)), None)
    log: str | None = field(nullable(text(min_length=1)), None)
    timeout: float | None = field(nullable(duration()), None)

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


class MetricsSpec(Model):
    """A Prometheus scrape annotation: one target per node (``first``: the first only)."""

    port: int = field(_port())
    path: str = field(text(min_length=1), "/metrics")
    nodes: str = field(literal("all", "first"), "all")
    name: str | None = field(nullable(text(min_length=1)), None)


class ServiceMount(Model):
    host: str = field(text(min_length=1))
    container: str = field(text(min_length=1))
    read_only: bool = field(boolean(), False)


def _one_or_many(value: Any) -> Any:
    return [value] if isinstance(value, dict) else value


class ServiceEntry(Model):
    name: str = field(text(min_length=1))
    type: str = field(text(min_length=1), "generic")
    image: str | None = field(nullable(text(min_length=1)), None)
    """Container image; default: the kind's, else the recipe's ``docker_image``."""
    command: list[str] | None = field(nullable(array(text())), None)
    """The argv the container runs (its first word becomes the entrypoint)."""
    args: list[str] = field(array(text()), factory=list)
    """Appended to the command (the kind's default or the one given here)."""
    env: dict[str, str] = field(table(text()), factory=dict)
    placement: Placement = field(nested(Placement), factory=Placement)
    nodes: int | None = field(nullable(integer(ge=1)), None)
    """Own a pool of this many whole nodes, carved after the engine's nodes."""
    readiness: ReadinessSpec | None = field(nullable(nested(ReadinessSpec)), None)
    metrics: list[MetricsSpec] | None = field(
        before(_one_or_many, nullable(array(nested(MetricsSpec)))), None)
    options: dict[str, Any] = field(table(anything()), factory=dict)
    terminal: bool = field(boolean(), False)
    critical: bool | None = field(nullable(boolean()), None)
    enabled: bool = field(boolean(), True)
    start: str | None = field(nullable(literal(*PHASES)), None)
    gpus: bool | None = field(nullable(boolean()), None)
    runtime: str = field(literal("docker", "tmux"), "docker")
    mounts: list[ServiceMount] = field(array(nested(ServiceMount)), factory=list)


class Frontend(Model):
    """Who serves the API: the head's own server, a Dynamo frontend, or nobody."""

    type: str | None = field(nullable(literal("engine", "dynamo", "none")), None)
    port: int | None = field(nullable(_port()), None)
    """The Dynamo frontend's HTTP port (default 8000)."""
    image: str | None = field(nullable(text(min_length=1)), None)
    """The Dynamo frontend's image (default: the recipe's docker_image)."""
