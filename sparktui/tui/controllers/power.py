"""The dashboard's power actions (``p`` and the palette's power on / off / switch).

Each passes the host's safety gate (so ``--watch`` never gets here), then needs a
``[home_assistant]`` table, then shows the plan in words with a fresh health check of
the cluster that goes down (or comes up), then starts the run through
:class:`~sparktui.tui.controllers.flows.ActionFlows` (one action at a time).
"""

from __future__ import annotations

from functools import partial

from sparktui.config.loaded import LoadedConfig
from sparktui.config.models import Config
from sparktui.engine.api import ClusterControl, Workload
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.plan.power import PowerPlan, plan_off, plan_on, plan_switch
from sparktui.tui import workers
from sparktui.tui.actions import Action
from sparktui.tui.controllers.ask import Ask, Runs
from sparktui.tui.controllers.host import Host
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen, HealthCheck
from sparktui.tui.screens.power_menu import PowerChoice, PowerMenuScreen, power_choices
from sparktui.tui.viewmodel.recipes import render_problems
from sparktui.tui.viewmodel.runs import power_title


class PowerFlows:
    """Power on, off or switch the cluster under the clusters pane's cursor."""

    def __init__(self, host: Host, flows: Runs) -> None:
        self.host = host
        self.flows = flows

    def menu(self) -> None:
        """``p``: on, off or switch for the cluster under the clusters pane's cursor."""
        control = self._control(Action.POWER)
        if control is None:
            return
        cluster = self.host.selection.cursor_cluster
        menu = PowerMenuScreen(cluster, power_choices(cluster, self._switch_sources(cluster)))
        self.host.push_screen(menu, partial(self._chosen, control))

    def on(self) -> None:
        if (control := self._control(Action.POWER_ON)) is not None:
            self._chosen(control, PowerChoice("on", None, self.host.selection.cursor_cluster))

    def off(self) -> None:
        if (control := self._control(Action.POWER_OFF)) is not None:
            self._chosen(control, PowerChoice("off", self.host.selection.cursor_cluster, None))

    def switch(self) -> None:
        """Switch to the cluster under the cursor from the one in focus (else: choose)."""
        control = self._control(Action.POWER_SWITCH)
        if control is None:
            return
        selection = self.host.selection
        target = selection.cursor_cluster
        choices = power_choices(target, self._switch_sources(target), switch_only=True)
        if not choices:
            self.host.notify(_("no other cluster to switch from"), severity="warning")
        elif len(choices) == 1 or selection.cluster != target:
            self._chosen(control, choices[0][0])
        else:
            self.host.push_screen(PowerMenuScreen(target, choices),
                                  partial(self._chosen, control))

    def _chosen(self, control: ClusterControl, choice: PowerChoice | None) -> None:
        """Off, on or switch: the plan in words and a fresh health check of the cluster
        that goes down (or comes up), then the run."""
        config = self.host.session.loaded
        assert config is not None
        if choice is None or self.flows.refuse_while_busy():
            return
        try:
            plan = power_plan(config, choice)
        except SparkError as exc:
            self.host.notify(render_problems(exc.problems), severity="error")
            return
        checked = plan.source or plan.target or ""
        request = power_request(config.config, plan, partial(self.host.fresh_health, checked))
        self.flows.confirm(control, Ask(
            ConfirmScreen(request), _("cancelled; nothing was powered on or off"),
            Action.POWER, plan.confirm_name, None,
            lambda control, sink, run_id: workers.run_power(control, plan.action, plan.source,
                                                            plan.target, sink, run_id),
            power=plan))

    def _control(self, action: Action) -> ClusterControl | None:
        control = self.host.control(action)
        if control is None or not self.host.selection.cluster_names:
            return None
        config = self.host.session.loaded
        assert config is not None
        if config.config.home_assistant is None:
            path = config.source.path
            missing = (_("Power goes through Home Assistant, and the file {path} has no "
                         "[home_assistant] table.").format(path=path) if path is not None
                       else _("Power goes through Home Assistant, and no config file was "
                              "found (~/.config/sparktui/config.toml)."))
            self.host.notify(
                missing + " " + _("Add a [home_assistant] table with url and token (a "
                                  "long-lived access token), and give each node an entity "
                                  "(e.g. switch.spark1): `sparktui power --help` shows an "
                                  "example."),
                title=_("power is not configured"), severity="error", timeout=15)
            return None
        return control

    def _switch_sources(self, target: str) -> list[str]:
        """Clusters a switch to ``target`` may come from: the one in focus first."""
        selection = self.host.selection
        names = [n for n in selection.cluster_names if n != target]
        return sorted(names, key=lambda n: n != selection.cluster)


def power_request(config: Config, plan: PowerPlan, check: HealthCheck) -> ConfirmRequest:
    """The confirmation of a power action: its plan in words, the health of the cluster
    that goes down (or comes up) from ``check``, the workloads that go down marked."""
    down = {n.name for n in plan.down}

    def affects(work: Workload) -> bool:
        return work.node in down  # a node going down takes everything on it along

    verb = {"off": _("Power off"), "on": _("Power on"), "switch": _("Switch")}[plan.action]
    lines = "\n".join("• " + line for line in plan.lines(config))
    return ConfirmRequest(
        title=power_title(plan), verb=verb, cluster=plan.confirm_name,
        what=_("Through Home Assistant:\n{steps}\nBelow is what the nodes of {cluster} "
               "answer right now; ✖ marks what goes down with its node.").format(
            steps=lines, cluster=plan.source or plan.target or ""),
        check=check, affects=affects)


def power_plan(config: LoadedConfig, choice: PowerChoice) -> PowerPlan:
    """The engine's plan for a choice (raises SparkError for an unknown cluster)."""
    if choice.action == "switch":
        assert choice.source is not None and choice.target is not None
        return plan_switch(config.config, choice.source, choice.target)
    if choice.action == "off":
        assert choice.source is not None
        return plan_off(config.config, choice.source)
    assert choice.target is not None
    return plan_on(config.config, choice.target)
