"""The dashboard: panes for clusters, recipes, nodes, plan, logs and services.

This screen owns what is shown (health, errors and telemetry per cluster) and the one
copy of what the operator chose: the cluster in focus and the recipe under the cursor,
handed out with the cursors and the last health as one :attr:`DashboardScreen.selection`.
It updates its panes from messages: ``HealthUpdated``/``HealthFailed``/``LogsArrived``/
``TelemetryUpdated`` from the read workers, and the operator's choices from the panes.
It never calls the engine; its recipe edit keys run ``sparktui.tui.controllers.recipes``
with the host it was given.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from sparktui.config.models import Cluster
from sparktui.engine.api import ClusterHealth, TelemetryFrame
from sparktui.i18n import _
from sparktui.tui.actions import Action, Target, bindings
from sparktui.tui.controllers import recipes as recipe_edits
from sparktui.tui.controllers.host import Host
from sparktui.tui.markup import esc
from sparktui.tui.messages import (
    ClusterFocused,
    HealthFailed,
    HealthUpdated,
    LogsArrived,
    NodeChosen,
    RecipeChosen,
    RecipeHighlighted,
    TelemetryUpdated,
)
from sparktui.tui.screens.details import DetailsScreen, node_screen, recipe_details
from sparktui.tui.session import Session
from sparktui.tui.viewmodel.recipes import KeptPreview, PlanPreview, RecipeEntry, scan_recipes
from sparktui.tui.viewmodel.selection import Selection
from sparktui.tui.viewmodel.supervision import SupervisionAlerts
from sparktui.tui.widgets.alerts import AlertsStrip
from sparktui.tui.widgets.clusters import ClustersPane
from sparktui.tui.widgets.footer import FittingFooter
from sparktui.tui.widgets.header import HeaderState, StatusHeader
from sparktui.tui.widgets.logs import LogsPane
from sparktui.tui.widgets.nodes import NodesPane
from sparktui.tui.widgets.plan import PlanPane
from sparktui.tui.widgets.recipes import RecipesPane
from sparktui.tui.widgets.services import ServicesPane
from sparktui.tui.widgets.wall import WallPane

TABS = {"plan": "tab-plan", "logs": "tab-logs", "services": "tab-services"}
WATCH_HIDDEN_PANES = frozenset({"recipes", "plan"})


class DashboardScreen(Screen[None]):
    """Keys that only move around live here; keys that act on a cluster live on the app."""

    BINDINGS = bindings(Target.SCREEN)

    def __init__(self, session: Session, host: Host, *, cluster: str = "",
                 recipe: str | None = None) -> None:
        """On the session's (loaded) config; ``cluster`` and ``recipe``: what a reload keeps
        in focus (a cluster the config no longer has gives way to its first)."""
        super().__init__(classes="-watch" if session.watch_mode else "")
        config = session.loaded
        assert config is not None
        options = session.options
        self.host = host
        self.config = config
        self._previews = KeptPreview()
        self.watch_mode = session.watch_mode
        self.connected = session.engine is not None
        self.clock = options.clock
        self.stale_after = options.stale_after
        self.clusters: list[Cluster] = list(config.config.clusters)
        self._cluster = cluster if self.cluster_config(cluster) is not None else (
            self.clusters[0].name if self.clusters else "")
        self._recipe = recipe
        self.health: dict[str, ClusterHealth] = {}
        self.health_error: dict[str, str] = {}
        self.telemetry: dict[str, TelemetryFrame] = {}
        self.supervision = SupervisionAlerts()
        self._log_lines_per_node = options.log_lines_per_node

    def compose(self) -> ComposeResult:
        yield StatusHeader(self.clock, id="header")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield ClustersPane(self.clusters, id="clusters", classes="pane")
                yield RecipesPane(id="recipes", classes="pane")
            with Vertical(id="main"):
                if self.watch_mode:
                    yield WallPane(id="wall")
                yield AlertsStrip(id="alerts")
                yield NodesPane(self.clock, id="nodes", classes="pane")
                with TabbedContent(id="tabs",
                                   initial="tab-logs" if self.watch_mode else "tab-plan"):
                    with TabPane(_("4 Plan"), id="tab-plan"):
                        yield PlanPane(id="plan", classes="pane")
                    with TabPane(_("5 Logs"), id="tab-logs"):
                        yield LogsPane(self._log_lines_per_node, clock=self.clock, id="logs",
                                       classes="pane")
                    with TabPane(_("6 Services"), id="tab-services"):
                        yield ServicesPane(id="services", classes="pane")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#clusters").border_title = _("1 Clusters")
        self.query_one("#recipes").border_title = _("2 Recipes")
        self.query_one("#nodes").border_title = _("3 Nodes")
        self.query_one("#logs").border_title = _("Logs")
        if self.watch_mode:
            self.query_one(TabbedContent).hide_tab("tab-plan")
        if not self.connected:
            self.logs.set_empty_text(_("Not connected. The logs of the cluster's sparktui "
                                       "containers stream here once the dashboard is "
                                       "connected to the cluster."))
        self.reload_recipes()
        self.show_cluster(self.cluster)
        self.focus_pane("clusters" if self.watch_mode else "recipes")
        if self.cluster:
            self.post_message(ClusterFocused(self.cluster))  # the app starts its workers

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == Action.FOCUS_PANE and self.watch_mode and parameters
                    and parameters[0] in WATCH_HIDDEN_PANES)

    def action_focus_pane(self, name: str) -> None:
        self.focus_pane(name)

    def action_focus_logs(self) -> None:
        self.focus_pane("logs")

    def action_filter(self) -> None:
        self.open_filter()

    def action_details(self) -> None:
        self.show_details()

    # -- panes ------------------------------------------------------------------------------

    @property
    def logs(self) -> LogsPane:
        return self.query_one(LogsPane)

    @property
    def nodes(self) -> NodesPane:
        return self.query_one(NodesPane)

    @property
    def clusters_pane(self) -> ClustersPane:
        return self.query_one(ClustersPane)

    @property
    def recipes(self) -> RecipesPane:
        return self.query_one(RecipesPane)

    @property
    def plan(self) -> PlanPane:
        return self.query_one(PlanPane)

    def cluster_config(self, name: str) -> Cluster | None:
        return next((c for c in self.clusters if c.name == name), None)

    # -- the selection: the only copy of what the operator chose ---------------------------

    @property
    def cluster(self) -> str:
        """The cluster in focus."""
        return self._cluster

    @property
    def recipe(self) -> str | None:
        """The name of the recipe under the recipes pane's cursor."""
        return self._recipe

    @property
    def selection(self) -> Selection:
        """What the operator points at, assembled when read: the cursors and the focus
        move between two reads, so no copy of them is kept to fall out of step."""
        cluster = self._cluster
        node, cursor_cluster, recipe = None, cluster, None
        if self.is_mounted:  # the panes are there
            recipe = self.selected_entry()
            ref = self.clusters_pane.current()
            cursor_cluster = ref.cluster if ref is not None else cluster
            if self.app.focused is self.clusters_pane.cluster_tree and ref is not None \
                    and ref.node is not None and ref.cluster == cluster:
                node = ref.node
            else:
                node = self.nodes.current_node()
        return Selection(cluster=cluster, recipe=recipe, node=node,
                         cursor_cluster=cursor_cluster, health=self.health.get(cluster),
                         cluster_names=tuple(c.name for c in self.clusters))

    def focus_cluster(self, name: str, *, paint: bool = True) -> bool:
        """Make ``name`` the cluster in focus (False: this config has no such cluster).
        ``paint``: show it and put the tree's cursor on its line; not before the screen
        is up (it shows its cluster when it mounts)."""
        if self.cluster_config(name) is None:
            return False
        if not paint:
            self._cluster = name
            return True
        self.show_cluster(name)
        self.clusters_pane.select_cluster_line(name)
        return True

    # -- the recipe list, for the recipe edit flows (controllers.host.RecipeShelf) ----------

    def recipe_entry(self, name: str) -> RecipeEntry | None:
        return self.recipes.entry(name)

    def select_recipe(self, name: str) -> None:
        self.recipes.select(name)

    # -- what the app tells the screen -----------------------------------------------------

    def show_cluster(self, name: str) -> None:
        cluster = self.cluster_config(name)
        if cluster is None:
            return
        changed = name != self.cluster or not self.logs.node_order
        self._cluster = name
        self.clusters_pane.set_focused(name)
        self.nodes.show(cluster, self.health.get(name))
        self.query_one(ServicesPane).show(self.health.get(name))
        if changed:
            self.logs.clear()
            self.logs.set_nodes(n.name for n in cluster.ranked)
        self.logs.cluster = name
        self.query_one("#logs").border_title = _("Logs of {cluster}").format(cluster=esc(name))
        self._show_telemetry(self.telemetry.get(name))  # paints the header too
        self._fit_recipes()

    def reload_recipes(self) -> None:
        entries, problems = scan_recipes(self.host.session.recipes_dir)
        self.recipes.set_entries(entries, problems, prefer=self.recipe)
        self._fit_recipes()

    def selected_entry(self) -> RecipeEntry | None:
        return self.recipes.entry(self.recipe)

    def current_preview(self) -> PlanPreview | None:
        """The selected recipe's plan on the cluster in focus, built once per (config,
        recipe, cluster): the plan pane, the palette and the action share it."""
        entry = self.selected_entry()
        return self._previews.get(self.config, entry, self.cluster) if entry else None

    def focus_pane(self, name: str) -> None:
        tabs = self.query_one(TabbedContent)
        if name in TABS:
            tabs.active = TABS[name]
        target: Widget = {
            "clusters": lambda: self.clusters_pane.cluster_tree,
            "recipes": lambda: self.recipes.option_list,
            "nodes": lambda: self.nodes.table,
            "plan": lambda: self.plan,
            "logs": lambda: self.logs.view,
            "services": lambda: self.query_one(ServicesPane),
        }[name]()
        target.focus()

    def open_filter(self) -> None:
        """``/``: search the logs (focused), filter the nodes (focused), else the recipes."""
        within = self.focused.ancestors_with_self if self.focused is not None else []
        if self.nodes in within and not self.watch_mode:
            self.nodes.open_filter()
        elif self.watch_mode or self.logs in within:
            self.focus_pane("logs")
            self.logs.open_search()
        else:
            self.recipes.open_filter()

    def show_details(self) -> None:
        """``enter`` outside a list: details of what the focused pane points at."""
        focused = self.focused
        if focused is self.nodes.table and (node := self.nodes.current_node()):
            self._node_details(self.cluster, node)
        elif focused is self.recipes.option_list and (entry := self.selected_entry()):
            self.app.push_screen(DetailsScreen(entry.name, recipe_details(entry)))
        elif focused is self.clusters_pane.cluster_tree and (ref := self.clusters_pane.current()) \
                and ref.node is not None:
            self._node_details(ref.cluster, ref.node)

    # -- messages ---------------------------------------------------------------------------

    @on(HealthUpdated)
    def _on_health(self, message: HealthUpdated) -> None:
        health = message.health
        self.health[health.cluster] = health
        self.health_error.pop(health.cluster, None)
        self.clusters_pane.set_health(health)
        for alarm in self.supervision.update(health.cluster, health.supervision, self.clock()):
            self.app.notify(f"{health.cluster}: {alarm.text}", timeout=30,
                            severity="error" if alarm.gave_up else "warning")
        if health.cluster == self.cluster and (cluster := self.cluster_config(self.cluster)):
            self.nodes.show(cluster, health)
            self.query_one(ServicesPane).show(health)
            self._show_alerts()
            self._paint_header()

    @on(TelemetryUpdated)
    def _on_telemetry(self, message: TelemetryUpdated) -> None:
        frame = message.frame
        self.telemetry[frame.cluster] = frame
        if frame.cluster == self.cluster:
            self._show_telemetry(frame)

    def _show_telemetry(self, frame: TelemetryFrame | None) -> None:
        self.nodes.set_telemetry(frame)
        self._show_alerts()
        if self.watch_mode:
            self.query_one(WallPane).show(frame)
        self._paint_header()

    @on(HealthFailed)
    def _on_health_failed(self, message: HealthFailed) -> None:
        self.health_error[message.cluster] = message.error
        if message.cluster == self.cluster:
            self._paint_header()

    @on(LogsArrived)
    def _on_logs_arrived(self, message: LogsArrived) -> None:
        if message.cluster != self.cluster:
            return
        self.logs.add_lines(message.lines)
        last = {node: text for node, text, gap in message.lines if node and not gap}
        self.nodes.set_last_lines(last)

    @on(RecipeHighlighted)
    def _on_recipe_highlighted(self, message: RecipeHighlighted) -> None:
        self._recipe = message.name
        self._preview()

    @on(RecipeChosen)
    def _on_recipe_chosen(self, message: RecipeChosen) -> None:
        self._recipe = message.name
        self._preview()
        self.focus_pane("plan")

    @on(RecipesPane.EditRequested)
    def _on_recipe_edit(self, message: RecipesPane.EditRequested) -> None:
        entry = self.recipes.entry(message.name)
        if entry is not None and not self.watch_mode:
            recipe_edits.run(self.host, self, entry, message.how)

    @on(NodeChosen)
    def _on_node_chosen(self, message: NodeChosen) -> None:
        self._node_details(message.cluster, message.node)

    # -- helpers ----------------------------------------------------------------------------

    def _node_details(self, cluster_name: str, node_name: str) -> None:
        if screen := node_screen(self.config.config, self.cluster_config(cluster_name),
                                 node_name, self.health.get(cluster_name), self.clock()):
            self.app.push_screen(screen)

    def _fit_recipes(self) -> None:
        """The recipes that fit the cluster in focus first; the others say why not."""
        self.recipes.fit_to(self.cluster_config(self.cluster))
        self._recipe = self.recipes.selected
        self._preview()

    def _show_alerts(self) -> None:
        frame = self.telemetry.get(self.cluster)
        self.query_one(AlertsStrip).show(frame.alerts if frame else [],
                                         self.supervision.alerts(self.cluster))

    def _paint_header(self) -> None:
        cluster = self.cluster_config(self.cluster)
        self.query_one(StatusHeader).update_state(HeaderState(
            cluster=self.cluster, nodes=len(cluster.nodes) if cluster else 0,
            health=self.health.get(self.cluster), error=self.health_error.get(self.cluster),
            connected=self.connected, watch=self.watch_mode, stale_after=self.stale_after,
            telemetry=self.telemetry.get(self.cluster)))

    def _preview(self) -> None:
        if self.watch_mode:
            return
        preview = self.current_preview()
        if preview is None:
            self.plan.border_title = _("Plan")
            self.plan.show_note(_("Pick a recipe to see its launch plan."))
        else:
            self.plan.border_title = esc(self.recipe) if not self.cluster else _(
                "{recipe} on {cluster}").format(recipe=esc(self.recipe), cluster=esc(self.cluster))
            self.plan.show(preview)
