"""serve's preflight per node, before anything starts: the image is there (and, where it
is not, how to get it there), and the GPUs ``--gpus`` asks for can be given.

A check that fails is said as such, never read as its answer: a daemon that does not
answer is not an image missing.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from sparktui.engine.drivers import driver_for
from sparktui.engine.remote.transport import Transport
from sparktui.engine.workloads.discover import image_absent
from sparktui.engine.workloads.hooks import StepFailed
from sparktui.i18n import N_
from sparktui.plan.model import LaunchPlan, NodePlan
from sparktui.said import Code, Layout, Said, joined, said
from sparktui.steps import Step


class PreflightSaid(Code):
    UNCHECKED = N_("could not check image {image} on {node}: {why}")
    NO_ANSWER = N_("no answer")
    NOT_PRESENT = N_("image {image} is not present on {node}; get it there: on {node}, {pull}")
    OR_COPY = N_("; or from {source}, which has it: {copy}")
    IDS_DIFFER = N_("image IDs differ across nodes: {detail}")


NO_SUCH_IMAGE = "no such image"
"""What docker says (``docker image inspect``, any case) of an image it does not have."""


@dataclass(frozen=True)
class ImageOn:
    """The plan's image on one node: its ID (None: the runtime runs no image), or missing."""

    id: str | None
    missing: bool = False


async def image_on(t: Transport, plan: LaunchPlan, node: str) -> ImageOn:
    """The image's ID on the node; missing only when docker says it has no such image.
    StepFailed when docker could not say (the daemon down, an error of its own)."""
    inspect = await driver_for(plan.runtime).image_id(t, plan.image)
    if inspect is None:
        return ImageOn(None)
    if inspect.ok:
        return ImageOn(inspect.stdout.strip())
    answer = (inspect.stderr or inspect.stdout).strip()
    if NO_SUCH_IMAGE in answer.lower():
        return ImageOn(None, missing=True)
    raise StepFailed(node, Step.PREFLIGHT, await image_absent(t, plan.image)
                     or said(PreflightSaid.UNCHECKED, image=plan.image, node=node,
                             why=answer[:200] or said(PreflightSaid.NO_ANSWER)))


def image_fix(plan: LaunchPlan, lacking: NodePlan, having: list[NodePlan]) -> Said:
    """One node's refusal: the image is not there, and the commands that put it there,
    quoted for a shell: a pull on the node, or a copy from a node that has it."""
    pull = shlex.join(["docker", "pull", plan.image])
    text = said(PreflightSaid.NOT_PRESENT, image=plan.image, node=lacking.name, pull=pull)
    if not having:
        return text
    port = ["-p", str(lacking.ssh_port)] if lacking.ssh_port != 22 else []
    ssh = shlex.join(["ssh", *port, f"{plan.ssh_user}@{lacking.ssh_ip}", "docker", "load"])
    return joined(Layout.CONCAT, text, said(
        PreflightSaid.OR_COPY, source=having[0].name,
        copy=f"{shlex.join(['docker', 'save', plan.image])} | {ssh}"))


def missing_image_refusal(plan: LaunchPlan, found: dict[str, ImageOn]) -> list[StepFailed]:
    """A refusal for each node without the image (none: every node has it)."""
    lacking = [n for n in plan.nodes if found[n.name].missing]
    having = [n for n in plan.nodes if not found[n.name].missing]
    return [StepFailed(n.name, Step.PREFLIGHT, image_fix(plan, n, having)) for n in lacking]


def ids_differ(image_ids: dict[str, str | None]) -> Said | None:
    """The refusal when the nodes' images are not one image (None: they are)."""
    if len({i for i in image_ids.values() if i}) < 2:
        return None
    detail = ", ".join(f"{n}={(i or '')[:19]}" for n, i in image_ids.items())
    return said(PreflightSaid.IDS_DIFFER, detail=detail)


async def gpus_refusal(t: Transport, plan: LaunchPlan, node: NodePlan) -> Said | None:
    """Why the node cannot give the workload the GPUs its launch asks for (None: it can,
    or it asks for none), as its runtime's driver finds out (``Driver.gpus_refusal``)."""
    return await driver_for(plan.runtime).gpus_refusal(t, plan.image, node.launch, node.name)
