"""Command palette: the dashboard's actions that make sense right now.

Every entry is an action string checked with the app's ``check_action`` before it
is offered, so ``--watch`` never lists a mutating action; ``SparkApp.offers`` then
drops what cannot work now (serve without a fitting recipe, tmux without a session).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from sparktui.i18n import N_, _

if TYPE_CHECKING:
    from sparktui.tui.app import SparkApp

# (action, its parameters, title, help)
ENTRIES: list[tuple[str, tuple[str, ...], str, str]] = [
    ("refresh", (), N_("Refresh"), N_("check health now and reload the recipes")),
    ("help", (), N_("Help: keys"), N_("list every key")),
    ("focus_pane", ("clusters",), N_("Go to clusters"), N_("the cluster tree")),
    ("focus_pane", ("recipes",), N_("Go to recipes"), N_("the recipe list")),
    ("focus_pane", ("nodes",), N_("Go to nodes"), N_("the nodes of the cluster in focus")),
    ("focus_pane", ("plan",), N_("Go to plan"), N_("the launch plan of the selected recipe")),
    ("focus_pane", ("logs",), N_("Go to logs"), N_("the logs of the cluster in focus")),
    ("focus_pane", ("services",), N_("Go to services"), N_("services next to the engine")),
    ("filter", (), N_("Filter / search"), N_("filter the recipes or search the log lines")),
    ("serve", (), N_("Serve"), N_("serve the selected recipe on the cluster in focus")),
    ("stop", (), N_("Stop"), N_("stop what the cluster in focus serves")),
    ("exec", (), N_("Exec"), N_("run a command on the nodes of the cluster in focus")),
    ("tmux", (), N_("Tmux attach"), N_("attach to the tmux session of a tmux recipe")),
    ("power", (), N_("Power"), N_("switch the nodes' power through Home Assistant")),
    ("progress", (), N_("Progress"), N_("the steps of the last serve or stop")),
]


def action_string(action: str, params: tuple[str, ...]) -> str:
    if not params:
        return action
    return f"{action}({', '.join(repr(p) for p in params)})"


class SparkCommands(Provider):
    """Actions and 'go to cluster' entries, filtered by ``check_action``."""

    @property
    def spark(self) -> SparkApp:
        return self.app  # type: ignore[return-value]

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        app = self.spark
        for action, params, title, help_text in ENTRIES:
            # cluster actions live on the app, moving around on the dashboard screen
            target = app if hasattr(app, f"action_{action}") else app.dashboard
            if target is None or target.check_action(action, params) is False:
                continue
            if target is app and not app.offers(action):  # e.g. tmux without a session
                continue
            yield _(title), _(help_text), partial(app.run_action,
                                                  action_string(action, params), target)
        for name in app.cluster_names():
            yield (_("Cluster: {name}").format(name=name), _("show this cluster"),
                   partial(app.focus_cluster, name))

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
