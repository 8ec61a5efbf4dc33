"""Discover sparktui's workloads on a node (every runtime's), from their labels."""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import Workload
from sparktui.engine.workloads.docker_api import docker_listing
from sparktui.plan.fit.settings import argv_share
from sparktui.plan.fit.shares import HOLDING_STATES, Holder
from sparktui.plan.model import HEAD, MEM_SHARE_LABEL, WORKER
from sparktui.plan.runtime import RUNTIMES, runtime_for
from sparktui.plan.runtime.base import Found, Listing
from sparktui.plan.runtime.listing import list_all_command, parse_list_all

ENGINE_ROLES = (HEAD, WORKER)
DISCOVER = list_all_command()
"""One round trip lists every runtime's workloads (docker's through its CLI)."""
_DOCKER = runtime_for("docker")
_NOT_DOCKER = tuple(name for name in RUNTIMES if name != "docker")
DISCOVER_REST = list_all_command(_NOT_DOCKER)
"""The other runtimes' listing, when docker's came through its API (``parse_rest``)."""


class Discovery(NamedTuple):
    workloads: list[Workload]
    docker_error: str | None = None
    """What a runtime said when it could not list (docker's daemon is down, say)."""


def parse_discovery(node: str, output: str) -> Discovery:
    return _discovery(node, parse_list_all(output))


async def list_node(t: Transport, timeout: float | None = None) -> Discovery:
    """Every runtime's workloads on the node: docker's through its API while the other
    runtimes' listing runs, each about one round trip; when the API cannot answer,
    docker's through its CLI (docker_api.py). NodeError when the node does not answer."""
    docker, rest = await asyncio.gather(docker_listing(t, timeout),
                                        t.run(DISCOVER_REST, timeout=timeout))
    if docker is None:
        docker = _DOCKER.parse_list((await t.run(_DOCKER.list_command(),
                                                 timeout=timeout)).stdout)
    return parse_rest(t.node.name, docker, rest.stdout)


def parse_rest(node: str, docker: Listing, output: str) -> Discovery:
    """docker's listing from its API, the others' from ``DISCOVER_REST``'s output."""
    return _discovery(node, {"docker": docker, **parse_list_all(output, _NOT_DOCKER)})


def _discovery(node: str, listings: dict[str, Listing]) -> Discovery:
    workloads: list[Workload] = []
    error = None
    for runtime in RUNTIMES:
        listing = listings[runtime]
        workloads += [_workload(node, runtime, found) for found in listing.found]
        error = error or listing.error
    return Discovery(workloads, error)


async def discover(t: Transport) -> list[Workload]:
    """The node's workloads; NodeError when SSH or the node's docker cannot answer."""
    found = await list_node(t)
    if found.docker_error is not None:
        raise NodeError(t.node.name, "docker unreachable", found.docker_error)
    return found.workloads


def _workload(node: str, runtime: str, found: Found) -> Workload:
    label = found.labels
    return Workload(
        name=found.name, recipe=label.get("recipe", ""), cluster=label.get("cluster", ""),
        node=label.get("node", node), rank=_int(label.get("rank"), 0),
        role=label.get("role", ""), runtime=runtime, state=found.state, status=found.status,
        port=_int(label.get("port"), None), image=found.image, started_at=found.started_at,
        restarts=found.restarts, exit_code=found.exit_code, service=label.get("service"),
        service_index=_int(label.get("service_index"), None),
        mem_share=_share(label.get(MEM_SHARE_LABEL), found.argv), labels=label)


def share_holders(workloads: list[Workload], recipe: str) -> list[Holder]:
    """The engine members of other recipes among a node's workloads that hold (or are
    about to take) their share of its memory."""
    return [Holder(w.recipe, w.mem_share, w.port, w.name) for w in workloads
            if w.role in ENGINE_ROLES and w.recipe != recipe and w.state in HOLDING_STATES]


def _share(label: str | None, argv: tuple[str, ...]) -> float | None:
    """The label sparktui wrote at launch; else the share flag in the argv the node
    reports; None when neither says (the caller names it unknown, never zero)."""
    if label is not None:
        try:
            value = float(label)
        except ValueError:
            return None
        return value if 0 < value <= 1 else None
    return argv_share(list(argv))


def _int(value: Any, default: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
