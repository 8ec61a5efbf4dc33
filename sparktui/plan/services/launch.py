"""The argv that starts one service instance on its node, through its runtime.

Labels (``sparktui.*``) say what the container is, so ``stop``, ``health`` and the
services pane find it on the node without any local state (docs/plan-format.md).
"""

from __future__ import annotations

import json

from sparktui.config.models import Config
from sparktui.config.recipe import Recipe
from sparktui.config.services import ServiceEntry
from sparktui.plan.container import container_name
from sparktui.plan.model import MountPlan
from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import Command, ServiceLaunch
from sparktui.plan.service_model import MetricsEndpoint, Readiness
from sparktui.plan.services.kinds.base import ServiceKind

SERVICE_ROLE = "service"


def instance_name(recipe: str, service: str, index: int) -> str:
    """``sparktui-<recipe>--<service>-<index>``: apart from the engine's ``sparktui-<recipe>``."""
    return f"{container_name(recipe)}--{service}-{index}"


def service_labels(*, recipe: str, cluster: str, node: str, entry: ServiceEntry,
                   kind: ServiceKind, index: int, start: str, critical: bool,
                   pool: str | None, readiness: Readiness,
                   metrics: list[MetricsEndpoint]) -> dict[str, str]:
    """Readiness and metrics travel as JSON so health sees a recipe's own overrides."""
    labels = {"recipe": recipe, "cluster": cluster, "node": node, "role": SERVICE_ROLE,
              "service": entry.name, "service_type": kind.name, "service_index": str(index),
              "start": start, "critical": _flag(critical), "terminal": _flag(entry.terminal)}
    if pool is not None:
        labels["pool"] = pool
    labels["readiness"] = _json(readiness.as_dict())
    labels["metrics"] = _json([m.as_dict() for m in metrics])  # "[]": none, not the kind's
    return labels


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def service_launch(*, cfg: Config, recipe: Recipe, cluster: str, node: str,
                   entry: ServiceEntry, kind: ServiceKind, index: int, start: str,
                   critical: bool, pool: str | None, readiness: Readiness,
                   metrics: list[MetricsEndpoint], image: str, gpus: bool,
                   env: dict[str, str], argv: list[str],
                   has_command: bool) -> tuple[str, list[str]]:
    """``argv`` is command + args; without a command the image's entrypoint runs args."""
    name = instance_name(recipe.name, entry.name, index)
    labels = service_labels(recipe=recipe.name, cluster=cluster, node=node, entry=entry,
                            kind=kind, index=index, start=start, critical=critical, pool=pool,
                            readiness=readiness, metrics=metrics)
    mounts = [MountPlan(cfg.expand_home(m.host), m.container, bool(m.read_only))
              for m in entry.mounts]
    return name, runtime_for(entry.runtime).launch(ServiceLaunch(
        name=name, labels=labels, env=env, image=image, mounts=mounts,
        command=Command(argv, replaces_entrypoint=has_command), gpus=gpus,
        docker_flags=tuple(kind.docker_flags)))
