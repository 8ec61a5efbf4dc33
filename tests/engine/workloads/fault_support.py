"""Fault injection at every step of an action (issue 29): a progress sink that, the moment
the engine reports a chosen step, presses Ctrl+C (cancels the action, as ``asyncio.run``
does on SIGINT), kills a node's sshd with its connections, or kills its dockerd; then
the node is brought back and what the cluster holds is compared with what the action
said it left.

The fault fires inside the engine's own progress call, so it lands at that point of the
action however loaded the machine is: no timing decides where it falls."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

from sparktui.engine.api import ActionResult, Progress, Step, StepState


class Fault(StrEnum):
    CTRL_C = "ctrl_c"
    SSHD = "sshd"  # the node's sshd killed with every connection (the node went away)
    DOCKERD = "dockerd"  # the node's docker daemon killed


Point = tuple[str, str | None, str]  # (step, node, state) of a progress event

# Words that claim absence. A message holding one of them, written while a node did not
# answer, may be reading a failed check as "nothing there".
ABSENCE = re.compile(r"\bnothing\b|\bnone runs\b|\bnot present\b|\bno sparktui\b|"
                     r"\bnot serving\b|\bnothing was started\b", re.IGNORECASE)


def points(events: list[Progress], steps: set[str] | None = None) -> list[Point]:
    """Each (step, node) pair's first event, in the order the action reported them: the
    moments to break in at. ``steps`` keeps only those steps."""
    seen: dict[tuple[str, str | None], Point] = {}
    for e in events:
        if (steps is None or e.step in steps) and (e.step, e.node) not in seen:
            seen[(e.step, e.node)] = (str(e.step), e.node, str(e.state))
    return list(seen.values())


@dataclass
class Injector:
    """A progress sink that injects ``fault`` at the first event matching ``at``."""

    site: object
    at: Point
    fault: Fault
    victim: str  # the node whose sshd or dockerd dies (Ctrl+C: none)
    task: asyncio.Task | None = None
    events: list[Progress] = field(default_factory=list)
    fired: bool = False

    def __call__(self, event: Progress) -> None:
        self.events.append(event)
        if self.fired or (str(event.step), event.node, str(event.state)) != self.at:
            return
        self.fired = True
        node = self.site.hosts.node(self.victim)  # type: ignore[attr-defined]
        if self.fault is Fault.CTRL_C:
            assert self.task is not None
            self.task.cancel()
        elif self.fault is Fault.SSHD:
            node.kill()
        else:
            node.docker_down()

    def recover(self) -> None:
        """The broken node back: its sshd (same host key and port) or its dockerd."""
        node = self.site.hosts.node(self.victim)  # type: ignore[attr-defined]
        if self.fault is Fault.SSHD:
            node.start()
        elif self.fault is Fault.DOCKERD:
            node.docker_up()

    @property
    def broke_a_node(self) -> bool:
        return self.fired and self.fault is not Fault.CTRL_C

    def named_left(self) -> set[tuple[str | None, str]]:
        return {(e.node, str(e.detail)) for e in self.events if e.step == Step.LEFT}

    def failed_nodes(self) -> set[str | None]:
        return {e.node for e in self.events if e.state == StepState.FAILED}

    def story(self) -> str:
        return "\n".join(f"  {e.step} {e.node} {e.state} {str(e.detail)[:120]!r}"
                         for e in self.events)


async def run_with(injector: Injector, action: Callable[[Injector], Awaitable[object]]
                   ) -> object | None:
    """Run ``action(injector)`` as a task the injector can cancel; None when cancelled."""
    task = asyncio.ensure_future(action(injector))
    injector.task = task
    try:
        return await task
    except asyncio.CancelledError:
        if not injector.fired or injector.fault is not Fault.CTRL_C:
            raise
        return None


def absence_claims(injector: Injector, result: ActionResult | None) -> list[str]:
    """Messages that claim absence although a node was broken: none may stand."""
    if not injector.broke_a_node:
        return []
    texts = [str(e.detail) for e in injector.events]
    if result is not None:
        texts.append(str(result.detail))
    return [t for t in texts if ABSENCE.search(t)]


def sparktui_workloads(site, nodes: tuple[str, ...]) -> set[tuple[str, str]]:
    """(node, container) of every sparktui container on the nodes, in any state."""
    return {(n, name) for n in nodes for name in site.hosts.node(n).containers()
            if name.startswith("sparktui-")}
