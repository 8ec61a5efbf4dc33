"""The shape every cluster change takes from the dashboard, apart from who asks.

:class:`Ask` is what a controller prepares (the confirmation and the run behind it);
:class:`Runs` is all a controller may do with the one template that shows it and runs it
(:class:`~sparktui.tui.controllers.flows.ActionFlows`). The sub-flows (power,
supervision, containers) see only :class:`Runs`, so nothing imports the flows back.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from textual.screen import ModalScreen

from sparktui.engine.api import ClusterControl, Progress, TransferSink
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan
from sparktui.tui.actions import Action
from sparktui.tui.messages import ActionFinished

Sink = Callable[[Progress], None]


@dataclass(frozen=True)
class Ask:
    """A cluster change ready to be confirmed: the screen that asks (a health-first
    ``ConfirmScreen``, or serve's plan), what a "no" is told, and the run a "yes" starts."""

    screen: ModalScreen[bool]
    cancelled: str
    run: Action
    """The kind of run the progress view shows (a recipe's stop runs as a stop)."""
    cluster: str
    recipe: str | None
    work: Callable[[ClusterControl, Sink, int], Coroutine[Any, Any, ActionFinished]]
    url: str = ""
    power: PowerPlan | None = None
    plan: LaunchPlan | None = None
    """serve: the plan it ran, for the pull its refusal may offer."""


def api_url(plan: LaunchPlan) -> str:
    """Where the served API answers once ready (the progress view links it)."""
    return f"http://{plan.head.ssh_ip}:{plan.port}/v1" if plan.nodes else ""


class Runs(Protocol):
    """The confirm -> run template, as the sub-flows use it."""

    run_attached: Callable[[list[str]], int]

    def ask(self, action: Action, prepare: Callable[[], Ask | None]) -> None: ...

    def confirm(self, control: ClusterControl, asked: Ask) -> None: ...

    def refuse_while_busy(self) -> bool: ...

    def selected_plan(self) -> LaunchPlan | None: ...

    def transfers(self, run_id: int) -> TransferSink: ...
