"""Every command of the dashboard, declared once: its key, its words, whether it changes a
cluster, and when the selection allows it.

The key bindings of the app, the dashboard screen and its panes, the ``--watch`` gate
(``CHANGES_CLUSTER``: refused by ``SparkApp.check_action``, so not bound, not in the
footer, the help or the palette), the palette's entries, the help screen and the progress
view's labels are all derived from :data:`SPECS`. A command is named by :class:`Action`
everywhere (a ``StrEnum``: Textual still calls ``action_<value>``), so a typo is a type
error, not a key that silently does nothing.

What a command does lives with its owner (``SparkApp.action_serve`` calls
``ActionFlows.serve``; a pane's ``action_wrap`` toggles the pane); its confirmation and
run go through the one template of :mod:`sparktui.tui.controllers.flows`. The modal
dialogs' own keys (answer, close, move in a form) belong to each dialog and are not here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

from sparktui.i18n import N_, _

if TYPE_CHECKING:
    from sparktui.tui.viewmodel.recipes import PlanPreview
    from sparktui.tui.viewmodel.selection import Selection


class Action(StrEnum):
    QUIT = "quit"
    HELP = "help"
    REFRESH = "refresh"
    COMMAND_PALETTE = "command_palette"
    SERVE = "serve"
    STOP = "stop"
    STOP_RECIPE = "stop_recipe"
    RESTART = "restart"
    EXEC = "exec"
    TMUX = "tmux"
    SHELL = "shell"
    INSPECT = "inspect"
    POWER = "power"
    POWER_ON = "power_on"
    POWER_OFF = "power_off"
    POWER_SWITCH = "power_switch"
    SUPERVISE = "supervise"
    END_SUPERVISION = "end_supervision"
    BENCH = "bench"
    BENCH_RESULTS = "bench_results"
    PULL = "pull"
    PROGRESS = "progress"
    DEEP_CHECK = "deep_check"
    # the dashboard screen
    FOCUS_PANE = "focus_pane"
    FOCUS_LOGS = "focus_logs"
    FILTER = "filter"
    DETAILS = "details"
    # the panes
    SEARCH = "search"
    MATCH = "match"
    LEVEL = "level"
    FIRST_ERROR = "first_error"
    FOLLOW = "follow"
    WRAP = "wrap"
    NEXT_NODE = "next_node"
    SAVE = "save"
    CLEAR = "clear"
    SORT_NEXT = "sort_next"
    SORT_REVERSE = "sort_reverse"
    CLOSE_FILTER = "close_filter"
    EDIT = "edit"
    OPEN_EDITOR = "open_editor"
    DUPLICATE = "duplicate"
    SELECT = "select"
    SELECT_CURSOR = "select_cursor"
    RELOAD = "reload"


class Target(StrEnum):
    """Whose command it is: who declares its binding and runs it."""

    APP = "app"
    SCREEN = "screen"  # the dashboard
    LOGS = "logs"
    RECIPES = "recipes"
    NODES = "nodes"
    RECIPE_LIST = "recipe_list"  # enter on a line of a list: not in the palette
    NODE_TABLE = "node_table"
    CLUSTER_TREE = "cluster_tree"
    ERROR = "error"  # the config error screen


@dataclass(frozen=True)
class Now:
    """What a command's availability is judged on: the selection, and the selected
    recipe's plan on the cluster in focus (built only when a rule asks, once)."""

    selection: Selection
    preview: Callable[[], PlanPreview | None]


Why = Callable[[Now], "str | None"]
"""A command's rule: None when it can work now, else why not (in the user's language)."""


def _plan_fits(now: Now) -> str | None:
    preview = now.preview()
    return None if preview is not None and preview.ok else \
        _("pick a recipe whose plan fits this cluster")


def _recipe_runs(now: Now) -> str | None:
    entry, health = now.selection.recipe, now.selection.health
    if entry is None:
        return _("pick the recipe to stop in the recipes pane")
    if health is not None and not any(w.recipe == entry.name for w in health.workloads):
        return _("the last health check saw no {recipe} on {cluster}").format(
            recipe=entry.name, cluster=now.selection.cluster)
    return None


def _tmux_seen(now: Now) -> str | None:
    health = now.selection.health
    return None if health is None or any(w.can_attach for w in health.workloads) \
        else _("no sparktui tmux session on {cluster}").format(cluster=now.selection.cluster)


def _container_seen(now: Now) -> str | None:
    health = now.selection.health
    return None if health is None or any(w.can_enter for w in health.workloads) \
        else _("no sparktui container on {cluster}").format(cluster=now.selection.cluster)


def _other_cluster(now: Now) -> str | None:
    return None if len(now.selection.cluster_names) > 1 else \
        _("no other cluster to switch from")


@dataclass(frozen=True)
class Spec:
    target: Target
    action: Action
    key: str | None
    """None: reached through another command's menu (``via``), or the palette only."""
    label: str
    """N_: the key's words in the footer and the help."""
    title: str = ""
    """N_: the palette's entry; empty: not in the palette."""
    help: str = ""
    """N_: the palette's line under the title."""
    params: tuple[str | int, ...] = ()
    show: bool = True
    """In the footer (others are in the help and the palette)."""
    changes_cluster: bool = False
    idle_in_watch: bool = False
    """Not a cluster change, but nothing to do in --watch (no run, no recipes)."""
    watch_help: str = ""
    priority: bool = False
    via: Action | None = None
    """The command whose menu offers this one when it has no key."""
    binding_id: str = ""
    when: Why | None = None
    """When the selection allows it (its key says why not; the palette leaves it out)."""

    def unavailable(self, now: Now) -> str | None:
        return self.when(now) if self.when is not None else None

    @property
    def action_text(self) -> str:
        """Textual's action string: ``match(1)``, ``focus_pane('logs')``."""
        return self.action if not self.params else \
            f"{self.action}({', '.join(repr(p) for p in self.params)})"

    def binding(self) -> Binding:
        assert self.key is not None
        return Binding(self.key, self.action_text, _(self.label), show=self.show,
                       priority=self.priority, id=self.binding_id or str(self.action))


def _pane(i: int, name: str, label: str, title: str, help_text: str) -> Spec:
    return Spec(Target.SCREEN, Action.FOCUS_PANE, str(i), label, title, help_text,
                params=(name,), show=False, binding_id=f"pane.{name}")


A, S = Target.APP, Target.SCREEN
SPECS: tuple[Spec, ...] = (
    Spec(A, Action.QUIT, "q", N_("Quit")),  # Textual's palette has "Quit" already
    Spec(A, Action.HELP, "question_mark", N_("Help"), N_("Help: keys"), N_("list every key")),
    Spec(A, Action.REFRESH, "r", N_("Refresh"), N_("Refresh"),
         N_("check health now and reload the recipes"), watch_help=N_("check health now")),
    Spec(A, Action.SERVE, "s", N_("Serve"), N_("Serve"),
         N_("serve the selected recipe on the cluster in focus"), changes_cluster=True,
         when=_plan_fits),
    Spec(A, Action.STOP, "x", N_("Stop"), N_("Stop"), N_("stop what the cluster in focus serves"),
         changes_cluster=True),
    Spec(A, Action.EXEC, "e", N_("Exec"), N_("Exec"),
         N_("run a command on the nodes of the cluster in focus"), changes_cluster=True),
    Spec(A, Action.TMUX, "t", N_("Tmux"), N_("Tmux attach"),
         N_("attach to the tmux session of a tmux recipe"), changes_cluster=True,
         when=_tmux_seen),
    Spec(A, Action.POWER, "p", N_("Power"), N_("Power…"),
         N_("power on, off or switch the cluster under the cursor (Home Assistant)"),
         changes_cluster=True),
    Spec(A, Action.PROGRESS, "o", N_("Progress"), N_("Progress"),
         N_("the steps of the last action"), idle_in_watch=True),
    Spec(A, Action.DEEP_CHECK, "D", N_("Deep check"), N_("Deep check"),
         N_("a one-token completion on the head of the cluster in focus"), show=False),
    Spec(A, Action.BENCH_RESULTS, "b", N_("Benchmark runs"), N_("Benchmark runs"),
         N_("the runs sparktui bench kept: tokens/s and TTFT against concurrency"),
         show=False),
    Spec(A, Action.BENCH, "B", N_("Benchmark"), N_("Benchmark"),
         N_("load the selected serving recipe's head at 1, 4 and 16 concurrent requests"),
         show=False, changes_cluster=True,
         when=_plan_fits),
    Spec(A, Action.SUPERVISE, "S", N_("Supervise"), N_("Supervise"),
         N_("keep the selected recipe's group alive from a supervisor on the head"),
         show=False, changes_cluster=True,
         when=_plan_fits),
    Spec(A, Action.PULL, "P", N_("Pull image and model"), N_("Pull image and model"),
         N_("fetch the selected recipe's image and model once, copy them node to node "
            "(health check first)"), show=False, changes_cluster=True,
         when=_plan_fits),
    Spec(A, Action.END_SUPERVISION, "X", N_("End supervision"), N_("End supervision"),
         N_("end the supervision of the cluster in focus; nothing is stopped"), show=False,
         changes_cluster=True),
    Spec(A, Action.RESTART, "R", N_("Restart recipe"), N_("Restart"),
         N_("stop the selected recipe's group and serve it again (health check first)"),
         show=False, changes_cluster=True,
         when=_plan_fits),
    Spec(A, Action.STOP_RECIPE, "ctrl+x", N_("Stop recipe"), N_("Stop the selected recipe"),
         N_("stop only its group; the cluster's other recipes keep running (health check "
            "first)"), show=False, changes_cluster=True,
         when=_recipe_runs),
    Spec(A, Action.SHELL, "a", N_("Shell in container"), N_("Shell in the container"),
         N_("docker exec a shell in the container on the node under the cursor"), show=False,
         changes_cluster=True,
         when=_container_seen),
    Spec(A, Action.INSPECT, "i", N_("Inspect container"), N_("Inspect the container"),
         N_("docker inspect of the container on the node under the cursor, secrets masked"),
         show=False,
         when=_container_seen),
    Spec(A, Action.COMMAND_PALETTE, "ctrl+p", N_("Commands"), show=False, priority=True,
         binding_id="palette"),
    Spec(A, Action.COMMAND_PALETTE, "colon", N_("Commands"), show=False,
         binding_id="palette.colon"),
    Spec(A, Action.POWER_ON, None, N_("Power on"), N_("Power on"),
         N_("turn on the cluster's entities, then wait for SSH"), changes_cluster=True,
         via=Action.POWER),
    Spec(A, Action.POWER_OFF, None, N_("Power off"), N_("Power off"),
         N_("shut the cluster's nodes down, then turn off their entities"),
         changes_cluster=True, via=Action.POWER),
    Spec(A, Action.POWER_SWITCH, None, N_("Switch to this cluster"), N_("Switch to this cluster"),
         N_("power off what only the cluster in focus uses, power on this one"),
         changes_cluster=True, via=Action.POWER,
         when=_other_cluster),
    # the dashboard screen: keys that only move around
    Spec(S, Action.FILTER, "slash", N_("Filter"), N_("Filter / search"),
         N_("filter the recipes or search the log lines"), watch_help=N_("search the log lines"),
         binding_id="filter"),
    Spec(S, Action.FOCUS_LOGS, "l", N_("Logs"), binding_id="logs"),  # = Go to logs
    Spec(S, Action.DETAILS, "enter", N_("Details"), N_("Details"),
         N_("details of the node, recipe or cluster under the cursor"), show=False,
         watch_help=N_("details of the node under the cursor"), binding_id="details"),
    _pane(1, "clusters", N_("clusters"), N_("Go to clusters"), N_("the cluster tree")),
    _pane(2, "recipes", N_("recipes"), N_("Go to recipes"), N_("the recipe list")),
    _pane(3, "nodes", N_("nodes"), N_("Go to nodes"), N_("the nodes of the cluster in focus")),
    _pane(4, "plan", N_("plan"), N_("Go to plan"), N_("the launch plan of the selected recipe")),
    _pane(5, "logs", N_("logs"), N_("Go to logs"), N_("the logs of the cluster in focus")),
    _pane(6, "services", N_("services"), N_("Go to services"), N_("services next to the engine")),
)
"""The app's and the dashboard's commands; the panes' are in :data:`PANE_SPECS`."""

L, R, N = Target.LOGS, Target.RECIPES, Target.NODES
PANE_SPECS: tuple[Spec, ...] = (
    Spec(L, Action.SEARCH, "slash", N_("Search"), N_("Logs: search"),
         N_("highlight a text, n/N to move"), binding_id="logs.search"),
    Spec(L, Action.MATCH, "n", N_("Next match"), N_("Logs: next match"),
         N_("the next line the search finds"), params=(1,), show=False, binding_id="logs.next"),
    Spec(L, Action.MATCH, "N", N_("Previous match"), N_("Logs: previous match"),
         N_("the previous line the search finds"), params=(-1,), show=False,
         binding_id="logs.previous"),
    Spec(L, Action.LEVEL, "v", N_("Level"), N_("Logs: level"),
         N_("all lines, ERROR+, WARNING+, INFO+"), binding_id="logs.level"),
    Spec(L, Action.FIRST_ERROR, "E", N_("First error"), N_("Logs: jump to first error"),
         N_("the first ERROR, traceback, CUDA or NCCL error in view"), show=False,
         binding_id="logs.first_error"),
    Spec(L, Action.FOLLOW, "f", N_("Follow"), N_("Logs: follow"),
         N_("scroll with new lines again"), binding_id="logs.follow"),
    Spec(L, Action.WRAP, "w", N_("Wrap"), N_("Logs: wrap long lines"), N_("toggle wrapping"),
         binding_id="logs.wrap"),
    Spec(L, Action.NEXT_NODE, "c", N_("Node"), N_("Logs: next node"),
         N_("all nodes, then one node at a time"), binding_id="logs.node"),
    Spec(L, Action.FILTER, "ampersand", N_("Filter lines"), N_("Logs: filter lines"),
         N_("show only lines with a text"), show=False, binding_id="logs.filter"),
    Spec(L, Action.SAVE, "ctrl+s", N_("Save to a file"), N_("Logs: save to a file"),
         N_("the lines in view, with node tags, to the current folder"), show=False,
         binding_id="logs.save"),
    Spec(L, Action.CLEAR, "escape", N_("Clear search/filter"), N_("Logs: clear search and filter"),
         N_("show every line"), show=False, binding_id="logs.unfilter"),
    Spec(N, Action.SORT_NEXT, "greater_than_sign", N_("Sort by the next column"),
         N_("Nodes: sort by the next column"),
         N_("rank, node, role, … then cpu, mem, gpu; the header's arrow shows it"), show=False,
         binding_id="nodes.sort"),
    Spec(N, Action.SORT_REVERSE, "less_than_sign", N_("Reverse the sort"),
         N_("Nodes: reverse the sort"), N_("largest first or smallest first"), show=False,
         binding_id="nodes.sort_reverse"),
    Spec(N, Action.CLOSE_FILTER, "escape", N_("Clear filter"), N_("Nodes: clear filter"),
         N_("show every node"), show=False, binding_id="nodes.unfilter"),
    Spec(R, Action.EDIT, "m", N_("Edit"), N_("Recipe: edit"),
         N_("a form for the common fields, validated before saving"), idle_in_watch=True,
         binding_id="recipes.edit"),
    Spec(R, Action.OPEN_EDITOR, "E", N_("Open in $EDITOR"), N_("Recipe: open in $EDITOR"),
         N_("edit the recipe file; checked when the editor closes"), show=False,
         idle_in_watch=True, binding_id="recipes.editor"),
    Spec(R, Action.DUPLICATE, "d", N_("Duplicate as new recipe"),
         N_("Recipe: duplicate as new recipe"), N_("copy the recipe under a new name"),
         show=False, idle_in_watch=True, binding_id="recipes.duplicate"),
    Spec(R, Action.CLOSE_FILTER, "escape", N_("Clear filter"), N_("Recipes: clear filter"),
         N_("list every recipe"), show=False, binding_id="recipes.unfilter"),
    Spec(Target.RECIPE_LIST, Action.SELECT, "enter", N_("Plan"), binding_id="recipes.select"),
    Spec(Target.NODE_TABLE, Action.SELECT_CURSOR, "enter", N_("Details"),
         binding_id="nodes.select"),
    Spec(Target.CLUSTER_TREE, Action.SELECT_CURSOR, "enter", N_("Details"),
         binding_id="clusters.select"),
    Spec(Target.ERROR, Action.RELOAD, "r", N_("Reload config"), binding_id="error.reload"),
)

ALL_SPECS = SPECS + PANE_SPECS

CHANGES_CLUSTER: frozenset[Action] = frozenset(s.action for s in ALL_SPECS if s.changes_cluster)
"""The --watch gate: refused by ``SparkApp.check_action``, never bound in --watch."""

IDLE_IN_WATCH: frozenset[Action] = frozenset(s.action for s in ALL_SPECS if s.idle_in_watch)

NEEDS_DASHBOARD: frozenset[Action] = frozenset(
    {Action.REFRESH, Action.PROGRESS, Action.DEEP_CHECK, Action.INSPECT, Action.BENCH_RESULTS,
     *CHANGES_CLUSTER})
"""App commands that act on the dashboard (refused on the config error screen)."""

SAME_AS: dict[tuple[Target, str], tuple[Target, str]] = {
    (Target.SCREEN, Action.FOCUS_LOGS.value): (Target.SCREEN, "focus_pane('logs')")}
"""Bindings whose command another palette entry offers already."""


def bindings(target: Target) -> list[BindingType]:
    """The key bindings of one owner, in the table's order (the footer's and the help's)."""
    return [s.binding() for s in ALL_SPECS if s.target is target and s.key is not None]


def palette_specs() -> list[Spec]:
    return [s for s in ALL_SPECS if s.title]


def app_spec(action: Action) -> Spec:
    """The app's declaration of a command (the one its key and the palette use)."""
    return next(s for s in SPECS if s.target is Target.APP and s.action is action)


RUN_NOUNS: dict[Action, str] = {
    Action.SERVE: N_("serve"), Action.STOP: N_("stop"), Action.STOP_RECIPE: N_("stop"),
    Action.POWER: N_("power"), Action.EXEC: N_("exec"), Action.TMUX: N_("tmux"),
    Action.SUPERVISE: N_("supervise"), Action.END_SUPERVISION: N_("end of supervision"),
    Action.RESTART: N_("restart"), Action.SHELL: N_("shell"), Action.BENCH: N_("benchmark"),
    Action.PULL: N_("pull"),
    Action.POWER_ON: N_("power"), Action.POWER_OFF: N_("power"), Action.POWER_SWITCH: N_("power"),
}
"""A cluster-changing command as a noun ("a serve of ..."), in progress and refusals."""


def run_noun(action: Action) -> str:
    return _(RUN_NOUNS[action]) if action in RUN_NOUNS else str(action)


