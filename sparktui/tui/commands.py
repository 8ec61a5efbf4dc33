"""Command palette: the dashboard's actions that make sense right now.

Every entry names where its action lives (the app, the dashboard screen, the logs pane,
the recipes pane) and is checked with that node's ``check_action`` before it is offered,
so ``--watch`` never lists a mutating action; :func:`offers` then drops what cannot work
now (serve without a fitting recipe, tmux without a session). A pane's entry first
brings the pane into view, so what it does is seen. A test checks that every key binding
of the app, the screen and the panes has an entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from sparktui.i18n import N_, _
from sparktui.tui.markup import esc

if TYPE_CHECKING:
    from sparktui.tui.app import SparkApp


class Entry(NamedTuple):
    target: str  # "app", "screen" (the dashboard), "logs", "recipes" or "nodes" (a pane)
    action: str
    params: tuple[object, ...]
    title: str  # N_: translated when shown
    help: str
    watch_help: str = ""  # in --watch, where the recipes are hidden (default: help)


ENTRIES: list[Entry] = [
    Entry("app", "refresh", (), N_("Refresh"), N_("check health now and reload the recipes"),
          N_("check health now")),
    Entry("app", "help", (), N_("Help: keys"), N_("list every key")),
    Entry("screen", "focus_pane", ("clusters",), N_("Go to clusters"), N_("the cluster tree")),
    Entry("screen", "focus_pane", ("recipes",), N_("Go to recipes"), N_("the recipe list")),
    Entry("screen", "focus_pane", ("nodes",), N_("Go to nodes"),
          N_("the nodes of the cluster in focus")),
    Entry("screen", "focus_pane", ("plan",), N_("Go to plan"),
          N_("the launch plan of the selected recipe")),
    Entry("screen", "focus_pane", ("logs",), N_("Go to logs"),
          N_("the logs of the cluster in focus")),
    Entry("screen", "focus_pane", ("services",), N_("Go to services"),
          N_("services next to the engine")),
    Entry("screen", "filter", (), N_("Filter / search"),
          N_("filter the recipes or search the log lines"), N_("search the log lines")),
    Entry("screen", "details", (), N_("Details"),
          N_("details of the node, recipe or cluster under the cursor"),
          N_("details of the node under the cursor")),
    # cluster actions (mutating: never in --watch)
    Entry("app", "serve", (), N_("Serve"), N_("serve the selected recipe on the cluster in focus")),
    Entry("app", "stop", (), N_("Stop"), N_("stop what the cluster in focus serves")),
    Entry("app", "exec", (), N_("Exec"), N_("run a command on the nodes of the cluster in focus")),
    Entry("app", "tmux", (), N_("Tmux attach"), N_("attach to the tmux session of a tmux recipe")),
    Entry("app", "power", (), N_("Power…"),
          N_("power on, off or switch the cluster under the cursor (Home Assistant)")),
    Entry("app", "power_on", (), N_("Power on"),
          N_("turn on the cluster's entities, then wait for SSH")),
    Entry("app", "power_off", (), N_("Power off"),
          N_("shut the cluster's nodes down, then turn off their entities")),
    Entry("app", "power_switch", (), N_("Switch to this cluster"),
          N_("power off what only the cluster in focus uses, power on this one")),
    Entry("app", "supervise", (), N_("Supervise"),
          N_("keep the selected recipe's group alive from a supervisor on the head")),
    Entry("app", "end_supervision", (), N_("End supervision"),
          N_("end the supervision of the cluster in focus; nothing is stopped")),
    Entry("app", "stop_recipe", (), N_("Stop the selected recipe"),
          N_("stop only its group; the cluster's other recipes keep running (health check "
             "first)")),
    Entry("app", "restart", (), N_("Restart"),
          N_("stop the selected recipe's group and serve it again (health check first)")),
    Entry("app", "shell", (), N_("Shell in the container"),
          N_("docker exec a shell in the container on the node under the cursor")),
    Entry("app", "inspect", (), N_("Inspect the container"),
          N_("docker inspect of the container on the node under the cursor, secrets masked")),
    Entry("app", "progress", (), N_("Progress"), N_("the steps of the last action")),
    Entry("app", "deep_check", (), N_("Deep check"),
          N_("a one-token completion on the head of the cluster in focus")),
    # the nodes pane
    Entry("nodes", "sort_next", (), N_("Nodes: sort by the next column"),
          N_("rank, node, role, … then cpu, mem, gpu; the header's arrow shows it")),
    Entry("nodes", "sort_reverse", (), N_("Nodes: reverse the sort"),
          N_("largest first or smallest first")),
    Entry("nodes", "close_filter", (), N_("Nodes: clear filter"), N_("show every node")),
    Entry("app", "bench", (), N_("Benchmark"),
          N_("load the selected serving recipe's head at 1, 4 and 16 concurrent requests")),
    Entry("app", "bench_results", (), N_("Benchmark runs"),
          N_("the runs sparktui bench kept: tokens/s and TTFT against concurrency")),
    # the logs pane
    Entry("logs", "follow", (), N_("Logs: follow"), N_("scroll with new lines again")),
    Entry("logs", "wrap", (), N_("Logs: wrap long lines"), N_("toggle wrapping")),
    Entry("logs", "search", (), N_("Logs: search"), N_("highlight a text, n/N to move")),
    Entry("logs", "match", (1,), N_("Logs: next match"), N_("the next line the search finds")),
    Entry("logs", "match", (-1,), N_("Logs: previous match"),
          N_("the previous line the search finds")),
    Entry("logs", "filter", (), N_("Logs: filter lines"), N_("show only lines with a text")),
    Entry("logs", "next_node", (), N_("Logs: next node"),
          N_("all nodes, then one node at a time")),
    Entry("logs", "level", (), N_("Logs: level"), N_("all lines, ERROR+, WARNING+, INFO+")),
    Entry("logs", "first_error", (), N_("Logs: jump to first error"),
          N_("the first ERROR, traceback, CUDA or NCCL error in view")),
    Entry("logs", "save", (), N_("Logs: save to a file"),
          N_("the lines in view, with node tags, to the current folder")),
    Entry("logs", "clear", (), N_("Logs: clear search and filter"), N_("show every line")),
    # the recipes pane (not in --watch: the pane is hidden there)
    Entry("recipes", "edit", (), N_("Recipe: edit"),
          N_("a form for the common fields, validated before saving")),
    Entry("recipes", "open_editor", (), N_("Recipe: open in $EDITOR"),
          N_("edit the recipe file; checked when the editor closes")),
    Entry("recipes", "duplicate", (), N_("Recipe: duplicate as new recipe"),
          N_("copy the recipe under a new name")),
    Entry("recipes", "close_filter", (), N_("Recipes: clear filter"), N_("list every recipe")),
]

TEXTUAL_WORDS = (
    N_("Theme"), N_("Change the current theme"), N_("Quit"),
    N_("Quit the application as soon as possible"), N_("Keys"),
    N_("Hide the keys and widget help panel"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Minimize"), N_("Minimize the widget and restore to normal size"), N_("Maximize"),
    N_("Maximize the focused widget"), N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"), N_("Search for commands…"),
)
"""Textual's own palette words (textual 8.2, app.py and command.py): translated when shown,
so the palette reads in one language. A word a later Textual changes shows as it is."""


OURS_ALREADY = frozenset({"Keys"})
"""Textual's palette entries an entry of ours offers already ("Help: keys"): the palette
listed Keys twice."""


def system_commands(commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's palette entries (theme, quit, screenshot...) in the user's language,
    without those ours duplicate."""
    for command in commands:
        if command.title not in OURS_ALREADY:
            yield command._replace(title=_(command.title), help=_(command.help))


SAME_AS = {("screen", "focus_logs"): ("screen", "focus_pane('logs')")}
"""Bindings whose action another entry already offers."""

PANES = {"logs", "recipes", "nodes"}


def offers(app: SparkApp, action: str) -> bool:
    """Whether the palette lists a cluster action now (after ``check_action``)."""
    if app.dashboard is None:
        return True
    if action in ("serve", "supervise", "restart"):
        preview = app.dashboard.current_preview()
        return preview is not None and preview.ok
    if action == "tmux":
        health = app.selection.health
        return health is None or any(w.can_attach for w in health.workloads)
    if action == "stop_recipe":
        health, entry = app.selection.health, app.selection.recipe
        return entry is not None and (health is None or any(
            w.recipe == entry.name for w in health.workloads))
    if action in ("shell", "inspect"):
        health = app.selection.health
        return health is None or any(w.can_enter for w in health.workloads)
    if action == "power_switch":
        return len(app.cluster_names()) > 1
    return True


def action_string(action: str, params: tuple[object, ...]) -> str:
    if not params:
        return action
    return f"{action}({', '.join(repr(p) for p in params)})"


class SparkCommands(Provider):
    """Actions and 'go to cluster' entries, filtered by ``check_action``."""

    @property
    def spark(self) -> SparkApp:
        return self.app  # type: ignore[return-value]

    def _target(self, name: str) -> DOMNode | None:
        app, dashboard = self.spark, self.spark.dashboard
        if name == "app":
            return app
        if dashboard is None or dashboard not in app.screen_stack:
            return None
        if name == "screen":
            return dashboard
        if name == "recipes" and dashboard.watch_mode:
            return None
        if name == "nodes":
            return dashboard.nodes
        return dashboard.logs if name == "logs" else dashboard.recipes

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        app = self.spark
        for entry in ENTRIES:
            target = self._target(entry.target)
            if target is None or target.check_action(entry.action, entry.params) is False:
                continue
            if target is app and not offers(app, entry.action):  # e.g. tmux without a session
                continue
            watch = app.session.watch_mode and entry.watch_help
            yield (_(entry.title), _(entry.watch_help if watch else entry.help),
                   self._runner(entry, target))
        for name in app.cluster_names():
            yield (_("Cluster: {name}").format(name=esc(name)), _("show this cluster"),
                   partial(app.focus_cluster, name))

    def _runner(self, entry: Entry, target: DOMNode) -> Callable[[], object]:
        app = self.spark
        action = action_string(entry.action, entry.params)

        def run() -> object:
            if entry.target in PANES and app.dashboard is not None:
                app.dashboard.focus_pane(entry.target)  # see what the action does
            return app.run_action(action, target)

        return run

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
