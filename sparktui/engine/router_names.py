"""One model name, one recipe behind the router (unless the operator says otherwise).

SMG routes a request by its ``model`` among every worker listing that name, in turn: a
second recipe serving a name the first already serves takes half of its requests. serve
refuses it (``--share-model`` balances both on purpose), and the router step names every
name it balances.

What another recipe serves is read where SMG reads it, from its head's own /v1/models
(a label could say one name and the head answer another; SMG goes by the answer). A node
speaks only for itself: what it says can refuse this serve (the operator then decides),
never choose a worker, stop or move anything.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sparktui.engine.progress import ProgressLog
from sparktui.engine.status import ClusterHealth
from sparktui.i18n import N_
from sparktui.plan.model import LaunchPlan
from sparktui.plan.router import Backend, RouterPlan, served_names
from sparktui.said import Code, Said, said
from sparktui.steps import Step, StepState
from sparktui.visible import visible


class NamesSaid(Code):
    TAKEN = N_("{model} is already served by recipe {recipe} on {node} behind the cluster's "
               "router ({address}): the router would split its requests between both. Serve "
               "this one under another --served-model-name, stop {recipe}, or pass "
               "--share-model to balance both on purpose")
    UNREAD = N_("{recipe} on {node} does not answer /v1/models yet: its model name is not "
                "compared")
    SHARED = N_("{model} is balanced between {recipes} on purpose (--share-model)")
    BALANCED = N_("{model} is balanced between {recipes}: each takes every other request "
                  "(serve refuses this without --share-model)")


@dataclass(frozen=True)
class Holder:
    """A ready head of another recipe that lists ``model``, on ``node``."""

    model: str
    recipe: str
    node: str


def holders(health: ClusterHealth, recipe: str, names: list[str]) -> list[Holder]:
    """The other recipes' ready heads listing one of ``names`` (sparktui's own heads only:
    a foreign one is never asked, nor routed to)."""
    wanted = set(names)
    found = []
    for row in health.nodes:
        for e in row.engines:
            if e.recipe == recipe or not e.ready:
                continue
            found += [Holder(m, e.recipe or "-", row.node) for m in e.models if m in wanted]
    return found


def unread(health: ClusterHealth, recipe: str) -> list[tuple[str, str]]:
    """(recipe, node) of the other heads whose names cannot be read yet (loading, or the
    node did not answer): said, not compared."""
    out = [(e.recipe or "-", row.node) for row in health.nodes for e in row.engines
           if e.recipe != recipe and not e.ready]
    out += [("-", row.node) for row in health.nodes if not row.known]
    return out


def refusal(found: list[Holder], address: str) -> Said:
    first = found[0]
    return said(NamesSaid.TAKEN, model=visible(first.model), recipe=visible(first.recipe),
                node=first.node, address=address)


def taken(health: ClusterHealth, plan: LaunchPlan) -> Said | None:
    """Why ``plan`` may not serve through its cluster's router: another recipe's ready
    head lists a name it serves (None: none does, the cluster has no router, or the serve
    shares names on purpose, ``--share-model``). Serve's preflight and ``restart`` ask it."""
    router = plan.router
    if router is None or router.share_model:
        return None
    found = holders(health, plan.recipe, served_names(plan))
    return refusal(found, router.address) if found else None


def say_unread(health: ClusterHealth, recipe: str, node: str, log: ProgressLog) -> None:
    for other, where in unread(health, recipe):
        log(Step.ROUTER, node, StepState.WARN,
            said(NamesSaid.UNREAD, recipe=visible(other), node=where))


def say_shared(found: list[Backend], plan: RouterPlan, log: ProgressLog) -> None:
    """Every name the router balances between several recipes: on purpose
    (``--share-model``) an OK line, else a warning."""
    first: dict[str, Backend] = {}
    for b in found:
        if b.model:  # a head kept unread: its names are not known
            first.setdefault(b.worker, b)  # SMG routes a worker by its first name only
    by_name: dict[str, list[Backend]] = defaultdict(list)
    for b in first.values():
        by_name[b.model].append(b)
    for model, serving in sorted(by_name.items()):
        if len(serving) < 2:
            continue
        who = ", ".join(f"{visible(b.recipe or '-')} ({b.node or b.worker})" for b in serving)
        if plan.share_model:
            log(Step.ROUTER, plan.node, StepState.OK,
                said(NamesSaid.SHARED, model=visible(model), recipes=who))
        else:
            log(Step.ROUTER, plan.node, StepState.WARN,
                said(NamesSaid.BALANCED, model=visible(model), recipes=who))
