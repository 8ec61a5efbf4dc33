"""``pull_image``: the nodes of a plan that lack its image get it, ending with one image
ID everywhere.

What moves, in order, and why (docs/pull.md): each node says its image ID (as serve's
preflight asks; a node that cannot say is a failure naming it, never "lacks it"); the
first node (head first) that has it is the source, else the head pulls it from the
registry once; then copies over the fabric in doubling rounds (``plan.pull.image``). The
pairs that will copy are checked for SSH trust before anything moves. After each copy the
target's own ID must equal the source's; the target speaks only for itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping

from sparktui.config import image_record
from sparktui.config.models import Config, Node
from sparktui.engine import image_pins
from sparktui.engine.progress import ProgressLog
from sparktui.engine.pull.copy import copy_image, size_argv
from sparktui.engine.pull.registry import registry_download, registry_pull
from sparktui.engine.pull.transfer import PullKind, Source, Transfer, TransferSink
from sparktui.engine.pull.trust import untrusted_pairs
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.engine.workloads.hooks import StepFailed
from sparktui.engine.workloads.preflight import image_on
from sparktui.plan.image_pin import PinSaid, parse_reference
from sparktui.plan.model import LaunchPlan
from sparktui.plan.pull.download import need as registry_need
from sparktui.plan.pull.image import (
    PullSaid,
    disk_refusal,
    image_id,
    image_size,
    reference,
    schedule,
)
from sparktui.plan.runtime import runtime_for
from sparktui.said import Said, Text, said
from sparktui.steps import Step, StepState

STEP = Step.PULL_IMAGE


class _Failed(Exception):
    def __init__(self, failures: list[tuple[str, Text]]):
        self.failures = failures


async def _ids(plan: LaunchPlan, transports: Mapping[str, Transport]) -> dict[str, str | None]:
    """Each node's image ID (None: docker says it has no such image). _Failed names every
    node that could not say, or said what is not an image ID."""
    async def one(name: str) -> str | Text | None:
        try:
            on = await image_on(transports[name], plan, name)
        except StepFailed as exc:
            return exc.detail
        except NodeError as exc:
            return exc.said
        if on.missing:
            return None
        found = image_id(on.id or "")
        return found or said(PullSaid.BAD_ANSWER, node=name, image=plan.image,
                             answer=(on.id or "")[:80])

    names = [n.name for n in plan.nodes]
    answers = dict(zip(names, await asyncio.gather(*(one(n) for n in names)), strict=True))
    failed = [(n, a) for n, a in answers.items() if a is not None and not _is_id(a)]
    if failed:
        raise _Failed(failed)
    return {n: a if isinstance(a, str) else None for n, a in answers.items()}


def _is_id(answer: object) -> bool:
    return isinstance(answer, str) and image_id(answer) is not None


_FREE = r"""d=$(docker info --format '{{.DockerRootDir}}') || exit 3
printf '%s\n' "$d"; df -PB1 -- "$d" | tail -n 1"""
"""docker's data root on the node and its free bytes: where a ``docker load`` unpacks."""


async def _short_of_disk(transports: Mapping[str, Transport], targets: list[str], image: str,
                         need: int, download: int | None = None) -> list[tuple[str, Text]]:
    """The targets without ``need`` bytes free in docker's folder, each named with its
    figures (a node that cannot say is named too: never taken as room enough)."""
    async def one(name: str) -> Text | None:
        try:
            done = await transports[name].run(argv_command(["sh", "-c", _FREE, "sh"]))
        except NodeError as exc:
            return exc.said
        return disk_refusal(name, image, need, done.stdout if done.ok else done.stderr,
                            download)

    found = await asyncio.gather(*(one(n) for n in targets))
    return [(n, why) for n, why in zip(targets, found, strict=True) if why is not None]


async def _size(t: Transport, image: str) -> int | Text:
    """The image's size on the source (the same image, by ID, everywhere): the need
    each target's disk is checked against and every copy's total; else why it is not
    known (never 0: an unknown size is no room needed)."""
    try:
        done = await t.run(argv_command(size_argv(image)))
    except NodeError as exc:
        return exc.said
    size = image_size(done.stdout) if done.ok else None
    return size if size is not None else said(
        PullSaid.SIZE_UNREAD, node=t.node.name, image=image,
        answer=(done.stdout if done.ok else done.stderr).strip()[:120])


async def _room(transports: Mapping[str, Transport], source: str, targets: list[str],
                image: str) -> int | list[tuple[str, Text]]:
    """The image's size on ``source``, once every target has room for it; else who is
    short (or the source that could not say its size), before a byte is copied."""
    size = await _size(transports[source], image)
    if not isinstance(size, int):
        return [(source, size)]
    return await _short_of_disk(transports, targets, image, size) or size


async def _room_to_pull(t: Transport, image: str, log: ProgressLog) -> list[tuple[str, Text]]:
    """Who is short of room for the registry pull (the puller, named with the figures),
    before it starts. A registry that does not say the size is a warning, not a
    refusal: the daemon may reach it where the CLI cannot (a mirror), and the room is
    checked again after the pull, before any copy."""
    try:
        download = await registry_download(t, image)
    except NodeError as exc:
        return [(t.node.name, exc.said)]
    if not isinstance(download, int):
        log(STEP, t.node.name, StepState.WARN, download)
        return []
    return await _short_of_disk({t.node.name: t}, [t.node.name], image,
                                registry_need(download), download)


async def pull_image(config: Config, nodes: Mapping[str, Node],
                     transports: Mapping[str, Transport], plan: LaunchPlan,
                     progress: ProgressSink, transfers: TransferSink) -> ActionResult:
    log = ProgressLog(progress)

    def failed(failures: list[tuple[str, Text]]) -> ActionResult:
        for node, why in failures:
            log(STEP, node, StepState.FAILED, why)
        return ActionResult(False, failures[0][0], STEP, failures[0][1], log.events)

    if not runtime_for(plan.runtime).runs_image or not plan.nodes:
        return failed([(plan.head.name if plan.nodes else "-",
                        said(PullSaid.NO_IMAGES, recipe=plan.recipe))])
    image = plan.image
    order = [n.name for n in plan.nodes]
    log(STEP, None, StepState.STARTED, image)
    try:
        found = await _ids(plan, transports)
    except _Failed as exc:
        return failed(exc.failures)
    ref = reference(found, order)
    having = [n for n in order if ref is not None and found[n] == ref[1]]
    for name in having:
        log(STEP, name, StepState.OK, said(PullSaid.PRESENT, image=image, node=name,
                                           id=found[name] or ""))
    for name in order:
        if ref is not None and found[name] not in (None, ref[1]):
            log(STEP, name, StepState.WARN, said(PullSaid.OTHER_ID, node=name, image=image,
                                                 got=found[name] or "", want=ref[1],
                                                 source=ref[0]))
    plan_of = schedule(order, having)
    if not plan_of.moves:
        return await _done(log, plan, transports, ref[1] if ref else "",
                           PullSaid.NOTHING_TO_DO)
    targets = [t for pairs in plan_of.rounds for _, t in pairs]
    size = 0
    if ref is not None:  # the size is known before anything moves: every target has room
        room = await _room(transports, ref[0], targets, image)
        if not isinstance(room, int):
            return failed(room)
        size = room
    refusals = await untrusted_pairs(config, nodes, transports, plan_of.pairs)
    if refusals:
        return failed([(str(r.params["source"]), r) for r in refusals])
    want = ref[1] if ref else ""
    if plan_of.puller is not None:
        puller = plan_of.puller
        short = await _room_to_pull(transports[puller], image, log)
        if short:
            return failed(short)
        log(STEP, puller, StepState.STARTED, str(Source.REGISTRY))

        def pulled(done: int, total: int) -> None:
            transfers(Transfer(PullKind.IMAGE, puller, Source.REGISTRY, done, total))

        why: Text | None
        try:
            why = await registry_pull(transports[puller], image, pulled)
        except NodeError as exc:  # the node stopped answering: named, like any failure
            why = exc.said
        if why is not None:
            return failed([(puller, said(PullSaid.PULL_FAILED, node=puller, image=image,
                                         why=why))])
        try:
            after = await _ids(_one(plan, puller), transports)
        except _Failed as exc:
            return failed(exc.failures)
        want = after[puller] or ""
        log(STEP, puller, StepState.OK, said(PullSaid.PULLED, node=puller, image=image,
                                             id=want))
        room = await _room(transports, puller, targets, image)
        if not isinstance(room, int):  # before the first copy: what it pulled stays, said
            return failed(room)
        size = room
    for pairs in plan_of.rounds:
        results = await asyncio.gather(*(_copy(config, nodes, transports, plan, s, t, want,
                                               size, log, transfers) for s, t in pairs))
        failures = [f for f in results if f is not None]
        if failures:
            return failed(failures)
    return await _done(log, plan, transports, want, PullSaid.DONE)


def _one(plan: LaunchPlan, name: str) -> LaunchPlan:
    """The plan cut to one node, to ask that node alone for its image ID."""
    return dataclasses.replace(plan, nodes=[n for n in plan.nodes if n.name == name])


async def _copy(config: Config, nodes: Mapping[str, Node], transports: Mapping[str, Transport],
                plan: LaunchPlan, source: str, target: str, want: str, total: int,
                log: ProgressLog, transfers: TransferSink) -> tuple[str, Text] | None:
    """One copy of ``total`` bytes, then the target's own ID checked against ``want``
    (the source's)."""
    image = plan.image
    log(STEP, target, StepState.STARTED, source)
    transfers(Transfer(PullKind.IMAGE, target, source, 0, total))

    def moved(count: int) -> None:
        transfers(Transfer(PullKind.IMAGE, target, source, count, max(total, count)))

    why = await copy_image(transports[source], config, nodes[target], image, moved)
    if why is not None:
        return target, said(PullSaid.COPY_FAILED, image=image, source=source, node=target,
                            why=why)
    try:
        got = (await _ids(_one(plan, target), transports))[target] or ""
    except _Failed as exc:
        return exc.failures[0]
    if got != want:
        return target, said(PullSaid.ID_DIFFERS, node=target, image=image, got=got or "-",
                            source=source, want=want)
    transfers(Transfer(PullKind.IMAGE, target, source, total, total))
    log(STEP, target, StepState.OK, said(PullSaid.COPIED, image=image, source=source,
                                         node=target, id=got))
    return None


async def _done(log: ProgressLog, plan: LaunchPlan, transports: Mapping[str, Transport],
                want: str, code: PullSaid) -> ActionResult:
    """The end: every node has ``want``; the repo digest the head has (a registry's pull
    gave it one) is said and kept for the recipe, as serve keeps it."""
    head = plan.head.name
    digest = await image_pins.node_digest(transports[head], plan, head)
    if isinstance(digest, str):
        log(STEP, head, StepState.OK, said(PullSaid.DIGEST, image=plan.image, node=head,
                                                 digest=digest))
        if parse_reference(plan.image).mutable:
            try:
                image_record.remember(plan.cluster, plan.recipe, plan.image, digest)
            except OSError as exc:
                log(STEP, head, StepState.WARN, said(
                    PinSaid.NOT_KEPT, path=str(image_record.record_path(plan.cluster)),
                    why=exc.strerror or str(exc)))
    detail: Said = said(code, image=plan.image, id=want)
    log(STEP, None, StepState.OK, detail)
    return ActionResult(True, detail=detail, steps=log.events)
