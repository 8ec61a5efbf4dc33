"""The digest a recipe's image resolved to on each node, read through the runtime's
driver (``docker image inspect`` RepoDigests), and what serve keeps of it.

Why: ``sparktui pin`` writes the digest every node agrees on into the recipe, and serve
warns when a mutable tag now means other bytes than at the recipe's last serve on that
cluster. A node that does not answer is a refusal naming it, never "no digest"; what a
node answers is checked by ``sparktui.plan.image_pin`` before anything uses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from sparktui.config import image_record
from sparktui.engine.drivers import driver_for
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.results import Progress, ProgressSink
from sparktui.engine.workloads.preflight import NO_SUCH_IMAGE
from sparktui.plan.image_pin import (
    DigestReport,
    PinSaid,
    digest_of,
    moved,
    parse_reference,
    read_repo_digests,
)
from sparktui.plan.model import LaunchPlan
from sparktui.said import Said, said
from sparktui.steps import Step, StepState


async def node_digest(t: Transport, plan: LaunchPlan, node: str,
                      timeout: float | None = None) -> str | Said:
    """The digest of the plan's image on one node, or why it cannot be said."""
    try:
        answer = await driver_for(plan.runtime).repo_digests(t, plan.image, timeout)
    except NodeError as exc:
        return said(PinSaid.NO_ANSWER, node=node, why=exc.said)
    if answer is None:
        return said(PinSaid.NOT_DOCKER, recipe=plan.recipe)
    if not answer.ok:
        text = (answer.stderr or answer.stdout).strip()
        if NO_SUCH_IMAGE in text.lower():
            return said(PinSaid.NO_IMAGE, node=node, image=plan.image)
        return said(PinSaid.NO_ANSWER, node=node,
                    why=text[:200] or f"exit status {answer.exit_code}")
    try:
        digests = read_repo_digests(answer.stdout.strip())
    except ValueError:
        return said(PinSaid.BAD_ANSWER, node=node, repo=parse_reference(plan.image).repo,
                    answer=answer.stdout.strip()[:120])
    return digest_of(node, plan.image, digests)


async def image_digests(plan: LaunchPlan, transports: Mapping[str, Transport],
                        timeout: float | None = None) -> DigestReport:
    """Every engine node's answer, asked at once; one node's failure hides no other's."""
    names = [n.name for n in plan.nodes]
    found = await asyncio.gather(*(node_digest(transports[n], plan, n, timeout)
                                   for n in names))
    return DigestReport(plan.recipe, plan.cluster, plan.image, dict(zip(names, found,
                                                                        strict=True)))


async def after_serve(plan: LaunchPlan, transports: Mapping[str, Transport],
                      progress: ProgressSink, timeout: float | None = None) -> None:
    """A served mutable tag's digest is said (what the tag resolved to on the nodes) and
    kept for the recipe on this cluster; when it differs from the one kept at the last
    serve, serve warns with both. A pinned image,
    or one without a digest the nodes agree on (built on the node, never pulled), is
    left as it is: there is nothing a tag could have moved from."""
    if not plan.nodes or not parse_reference(plan.image).mutable:
        return
    report = await image_digests(plan, transports, timeout)
    now = report.result
    if not isinstance(now, str):
        return
    before = image_record.last_digest(plan.cluster, plan.recipe, plan.image)
    progress(Progress(Step.PREFLIGHT, plan.head.name, StepState.OK, said(
        PinSaid.RESOLVED, image=plan.image, digest=now)))
    if moved(before, now):
        progress(Progress(Step.PREFLIGHT, plan.head.name, StepState.WARN, said(
            PinSaid.MOVED, image=plan.image, now=now, before=before or "",
            cluster=plan.cluster, recipe=plan.recipe)))
    try:
        image_record.remember(plan.cluster, plan.recipe, plan.image, now)
    except OSError as exc:
        progress(Progress(Step.PREFLIGHT, plan.head.name, StepState.WARN, said(
            PinSaid.NOT_KEPT, path=str(image_record.record_path(plan.cluster)),
            why=exc.strerror or str(exc))))
