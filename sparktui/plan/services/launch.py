"""The argv that starts one service instance on its node: ``docker run`` or tmux.

Labels (``sparktui.*``) say what the container is, so ``stop``, ``health`` and the
services pane find it on the node without any local state (docs/plan-format.md).
"""

from __future__ import annotations

import json

from sparktui.config.models import Config
from sparktui.config.recipe import Recipe
from sparktui.config.services import ServiceEntry
from sparktui.plan.container import LABEL_PREFIX, Command, container_name, tmux_new_session
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
    if entry.runtime == "tmux":
        return name, tmux_new_session(name=name, labels=labels, env=env, command=Command(argv))
    out = ["docker", "run", "-d", "--name", name]
    for key, value in labels.items():
        out += ["--label", f"{LABEL_PREFIX}{key}={value}"]
    out += ["--network", "host"]
    if gpus:
        out += ["--gpus", "all"]
    out += list(kind.docker_flags)
    for mount in entry.mounts:
        volume = f"{cfg.expand_home(mount.host)}:{mount.container}"
        out += ["-v", volume + (":ro" if mount.read_only else "")]
    for key, value in env.items():
        out += ["-e", f"{key}={value}"]
    if not has_command:
        return name, [*out, image, *argv]  # the image's entrypoint, args as its command
    return name, [*out, "--entrypoint", argv[0], image, *argv[1:]]
