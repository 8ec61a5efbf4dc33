"""Discover sparktui's workloads on a node (every runtime's), from their labels.

A node speaks only for itself, and an image never speaks for sparktui: a workload is
the listing node's whatever its ``sparktui.node`` label says (one naming another node is
foreign), and it is sparktui's only when it carries a run id that its image does not
(``RUN_LABEL``). Foreign workloads are listed, so the operator sees them, and are never
stopped, restarted, supervised or restored (``Workload.ours``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import DRIVERS, driver_for
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.engine.status import Workload
from sparktui.i18n import N_
from sparktui.plan.fit.settings import argv_share
from sparktui.plan.model import MEM_SHARE_LABEL
from sparktui.plan.runtime import RUNTIMES
from sparktui.plan.runtime.base import RUN_ID_LENGTH, RUN_LABEL, Found, Listing
from sparktui.plan.runtime.foreign import Foreign
from sparktui.plan.runtime.listing import list_all_command, parse_list_all
from sparktui.said import Code, Said, Text, said

DISCOVER = list_all_command()
"""One round trip lists every runtime's workloads, each through its CLI."""
_DIRECT = tuple(name for name, driver in DRIVERS.items() if driver.lists_directly)
"""The runtimes whose driver reads its listing without the shell (docker's API)."""

Direct = Mapping[RuntimeName, Listing]
"""The listings read without the shell (``Driver.listing``), by runtime."""


def shell_names(direct: Direct) -> tuple[RuntimeName, ...]:
    """The runtimes the shell lists, in ``RUNTIMES`` order: those not in ``direct``."""
    return tuple(name for name in RUNTIMES if name not in direct)


def listing_command(direct: Direct) -> str:
    """One shell line listing what ``direct`` lacks (``parse_rest`` reads its output)."""
    return list_all_command(shell_names(direct))


DISCOVER_REST = list_all_command(tuple(n for n in RUNTIMES if n not in _DIRECT))
"""The listing of the runtimes without a direct read, run while those read theirs."""


async def direct_listings(t: Transport, timeout: float | None = None) -> dict[RuntimeName, Listing]:
    """The listings the drivers read without the shell (docker's through its API); a
    runtime left out is listed by ``listing_command``. NodeError: no answer in time."""
    found = await asyncio.gather(*(DRIVERS[name].listing(t, timeout) for name in _DIRECT))
    return {name: listing for name, listing in zip(_DIRECT, found, strict=True)
            if listing is not None}


class Discovery(NamedTuple):
    workloads: list[Workload]
    docker_error: Text | None = None
    """What a runtime said when it could not list (docker's daemon is down, say)."""


def parse_discovery(node: str, output: str) -> Discovery:
    return _discovery(node, parse_list_all(output))


async def list_node(t: Transport, timeout: float | None = None) -> Discovery:
    """Every runtime's workloads on the node: those with a direct read (docker's API)
    while the others' listing runs, each about one round trip; a direct read that cannot
    answer is the runtime's CLI listing after (the driver's ``listing``). NodeError when
    the node does not answer."""
    direct, rest = await asyncio.gather(direct_listings(t, timeout),
                                        t.run(DISCOVER_REST, timeout=timeout))
    listings = dict(direct)
    for name in _DIRECT:
        if name not in listings:
            runtime = driver_for(name).runtime
            listings[name] = runtime.parse_list((await t.run(runtime.list_command(),
                                                             timeout=timeout)).stdout)
    return await disown_image_runs(t, parse_rest(t.node.name, listings, rest.stdout), timeout)


async def disown_image_runs(t: Transport, found: Discovery, timeout: float | None = None
                            ) -> Discovery:
    """``found`` with every workload whose run id is its image's own label made foreign:
    an image made it, not sparktui. One read of each image by its runtime's driver
    (docker: through the API, else one ``docker image inspect`` of them all), only for
    workloads taken as ours. An image that cannot be read has no labels to compare (the
    node could set any run id itself: the check is against images, not against the
    node)."""
    image_runs: dict[str, str | None] = {}
    for runtime in RUNTIMES:
        images = sorted({w.image_id for w in found.workloads
                         if _checked(w) and w.runtime == runtime})
        if images:
            image_runs.update(await driver_for(runtime).image_run_labels(t, images, timeout))
    if not image_runs:
        return found
    why = said(Foreign.IMAGE_RUN_ID)
    workloads = [replace(w, foreign=why) if _checked(w) and image_runs.get(w.image_id)
                 == w.labels.get(RUN_LABEL) else w for w in found.workloads]
    return found._replace(workloads=workloads)


def _checked(w: Workload) -> bool:
    return w.ours and w.has_image and bool(w.image_id)


def parse_rest(node: str, direct: Direct, output: str) -> Discovery:
    """The listings of ``direct``, the others' from ``listing_command(direct)``'s output."""
    return _discovery(node, {**parse_list_all(output, shell_names(direct)), **direct})


def _discovery(node: str, listings: Mapping[RuntimeName, Listing]) -> Discovery:
    workloads: list[Workload] = []
    error = None
    for runtime in RUNTIMES:
        listing = listings[runtime]
        workloads += [_workload(node, runtime, found) for found in listing.found
                      if found.labels.get("recipe")]  # "": the router's, a supervisor's
        error = error or listing.error
    return Discovery(workloads, error)


async def discover(t: Transport) -> list[Workload]:
    """The node's workloads; NodeError when SSH or the node's docker cannot answer."""
    found = await list_node(t)
    if found.docker_error is not None:
        raise NodeError(t.node.name, Reason.DOCKER_UNREACHABLE, found.docker_error)
    return found.workloads


class DiscoverSaid(Code):
    IMAGE_UNKNOWN = N_("whether image {image} is present is unknown: docker on {node} does "
                       "not answer ({why})")


async def image_absent(t: Transport, image: str) -> Said | None:
    """When the image command failed because the node's docker does not answer (as
    health finds it): whether the image is there is unknown (issue 29), never "not
    present". None when docker answers: the error is the command's own."""
    found = await list_node(t)
    if found.docker_error is None:
        return None
    why = found.docker_error
    return said(DiscoverSaid.IMAGE_UNKNOWN, image=image, node=t.node.name,
                why=why[:200] if isinstance(why, str) else why)


_RUN_ID = re.compile(f"[0-9a-f]{{{RUN_ID_LENGTH}}}")
_NUMBERS = {"rank": (0, 1 << 16), "port": (1, 65535), "service_index": (0, 1 << 16)}
"""Labels that hold a number, and its bounds; empty is no value."""


def _workload(node: str, runtime: RuntimeName, found: Found) -> Workload:
    """The node that listed it is its node, whatever its labels claim."""
    label = found.labels
    return Workload(
        name=found.name, recipe=label.get("recipe", ""), cluster=label.get("cluster", ""),
        node=node, rank=_int(label.get("rank"), 0),
        role=label.get("role", ""), runtime=runtime, state=found.state, status=found.status,
        port=_int(label.get("port"), None), image=found.image, started_at=found.started_at,
        restarts=found.restarts, exit_code=found.exit_code,
        service=label.get("service") or None,
        service_index=_int(label.get("service_index"), None),
        mem_share=_share(label.get(MEM_SHARE_LABEL) or None, found.argv), labels=label,
        foreign=found.foreign or foreign_reason(node, label), image_id=found.image_id)


def foreign_reason(node: str, labels: dict[str, str]) -> Text:
    """Why a workload listed by ``node`` with ``labels`` is not sparktui's (empty: it is)."""
    claimed = labels.get("node", "")
    if claimed != node:
        return said(Foreign.OTHER_NODE, claimed=repr(claimed[:60]), node=node)
    if not _RUN_ID.fullmatch(labels.get(RUN_LABEL, "")):
        return said(Foreign.NO_RUN_ID)
    for key, (low, high) in _NUMBERS.items():
        value = labels.get(key, "")
        if value and not (value.isdecimal() and value.isascii() and low <= int(value) <= high):
            return said(Foreign.NOT_A_NUMBER, key=key, value=repr(value[:20]))
    return ""


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
