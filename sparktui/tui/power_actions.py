"""The dashboard's power actions (``p`` and the palette's power on / off / switch).

A mixin of :class:`sparktui.tui.app.SparkApp`, kept apart for size: every action passes
the app's ``_mutating`` gate (so ``--watch`` never gets here), then needs a
``[home_assistant]`` table, then ``sparktui.tui.flows`` runs the confirmation (a fresh
health check first) and the progress view.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from sparktui.config.loaded import LoadedConfig
from sparktui.engine.api import ClusterControl
from sparktui.i18n import _

if TYPE_CHECKING:
    from sparktui.tui.app import SparkApp
    from sparktui.tui.screens.power_menu import PowerChoice

    _Base = SparkApp
else:
    _Base = object


class PowerActions(_Base):
    """``action_power*`` for the app: the cluster under the clusters pane's cursor."""

    def action_power(self) -> None:
        """``p``: on, off or switch for the cluster under the clusters pane's cursor."""
        from sparktui.tui.screens.power_menu import PowerMenuScreen, power_choices

        control = self._power_control("power")
        if control is None:
            return
        cluster = self._power_cluster()
        menu = PowerMenuScreen(cluster, power_choices(cluster, self._switch_sources(cluster)))
        self.push_screen(menu, partial(self._power_chosen, control))

    def action_power_on(self) -> None:
        from sparktui.tui.screens.power_menu import PowerChoice

        if (control := self._power_control("power_on")) is not None:
            self._power_chosen(control, PowerChoice("on", None, self._power_cluster()))

    def action_power_off(self) -> None:
        from sparktui.tui.screens.power_menu import PowerChoice

        if (control := self._power_control("power_off")) is not None:
            self._power_chosen(control, PowerChoice("off", self._power_cluster(), None))

    def action_power_switch(self) -> None:
        """Switch to the cluster under the cursor from the one in focus (else: choose)."""
        from sparktui.tui.screens.power_menu import PowerMenuScreen, power_choices

        control = self._power_control("power_switch")
        if control is None:
            return
        target = self._power_cluster()
        choices = power_choices(target, self._switch_sources(target), switch_only=True)
        if not choices:
            self.notify(_("no other cluster to switch from"), severity="warning")
        elif len(choices) == 1 or self.cluster != target:
            self._power_chosen(control, choices[0][0])
        else:
            self.push_screen(PowerMenuScreen(target, choices),
                             partial(self._power_chosen, control))

    def _power_chosen(self, control: ClusterControl, choice: PowerChoice | None) -> None:
        assert isinstance(self.config, LoadedConfig)
        self.flows.power(control, self.config, choice)

    def _power_control(self, action: str) -> ClusterControl | None:
        control = self._mutating(action)
        if control is None or not self.cluster_names():
            return None
        assert isinstance(self.config, LoadedConfig)
        if self.config.config.home_assistant is None:
            self.notify(
                _("Power goes through Home Assistant, and {path} has no [home_assistant] "
                  "table. Add one with url and token (a long-lived access token), and give "
                  "each node an entity (e.g. switch.spark1). See docs/power.md.").format(
                    path=self.config.source.path or _("the config")),
                title=_("power is not configured"), severity="error", timeout=15)
            return None
        return control

    def _power_cluster(self) -> str:
        """The cluster under the clusters pane's cursor (else the one in focus)."""
        ref = self.dashboard.clusters_pane.current() if self.dashboard else None
        return ref.cluster if ref is not None else self.cluster

    def _switch_sources(self, target: str) -> list[str]:
        """Clusters a switch to ``target`` may come from: the one in focus first."""
        names = [n for n in self.cluster_names() if n != target]
        return sorted(names, key=lambda n: n != self.cluster)
