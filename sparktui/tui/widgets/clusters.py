"""Clusters pane: a tree of cluster -> nodes, each node with its reachability."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from sparktui.config.models import Cluster
from sparktui.engine.api import ClusterHealth, RouterStatus, SlurmStatus
from sparktui.i18n import _
from sparktui.plan.runtime.base import MISSING
from sparktui.tui.actions import Target, bindings
from sparktui.tui.messages import ClusterFocused, NodeChosen
from sparktui.tui.viewmodel.recipes import NO_CLUSTERS_SHORT
from sparktui.tui.viewmodel.supervision import supervision_mark
from sparktui.visible import visible

UNKNOWN, UP, DOWN, ROUTER, JOB = "○", "●", "✖", "⇄", "⧗"


class RefKind(Enum):
    """What kind of tree line a ``Ref`` is: one value, so a line is never two kinds."""

    CLUSTER = auto()  # the cluster's own line, or one of its nodes (``Ref.node`` names it)
    ROUTER = auto()  # the cluster's router line or one of its models (selects the cluster)
    JOB = auto()  # one of the cluster's Slurm jobs (selects the cluster)


@dataclass(frozen=True)
class Ref:
    """What a tree line stands for."""

    cluster: str
    node: str | None = None
    kind: RefKind = RefKind.CLUSTER


class ClusterTree(Tree[Ref]):
    BINDINGS = bindings(Target.CLUSTER_TREE)


def lines_of(branch: TreeNode[Ref], kind: RefKind) -> list[TreeNode[Ref]]:
    """A cluster's lines of one kind (its router line, its job lines), in tree order."""
    return [c for c in branch.children if c.data is not None and c.data.kind is kind]


def job_labels(status: SlurmStatus) -> list[Text]:
    """One line a job: its id, state, then time left (running) or Slurm's reason
    (pending); another user's dim, with the user. Slurm's words through ``visible``."""
    if status.error is not None:
        return [Text.assemble((JOB, "bold red"), " ", _("slurm: jobs unknown"))]
    out = []
    for job in status.jobs:
        theirs = job.user != status.user
        style = "dim" if theirs else "green" if job.running else "yellow"
        label = Text.assemble((JOB, style), " ", _("job"), f" {visible(job.id)} ",
                              (visible(job.state), style))
        label.append(" " + visible(job.reason if job.pending else job.time_left), style="dim")
        if theirs:
            label.append(f" ({visible(job.user)})", style="dim")
        out.append(label)
    return out


def reachability(health: ClusterHealth | None, node: str) -> tuple[str, str]:
    """Icon and style of a node: unknown without a health check."""
    if health is None:
        return UNKNOWN, "dim"
    found = next((n for n in health.nodes if n.node == node), None)
    if found is None:
        return UNKNOWN, "dim"
    if not found.reachable:
        return DOWN, "bold red"
    return (UP, "green") if found.docker_error is None else (UP, "bold red")  # docker down


class ClustersPane(Vertical):
    def __init__(self, clusters: list[Cluster], *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clusters = clusters
        self.focused_cluster = clusters[0].name if clusters else ""
        self.health: dict[str, ClusterHealth] = {}
        self._routers: dict[str, tuple[str, ...]] = {}  # the models each router line shows
        self._jobs: dict[str, list[str]] = {}  # the job lines each cluster shows

    def compose(self) -> ComposeResult:
        tree: ClusterTree = ClusterTree("clusters", id="clusters-tree")
        tree.show_root = False
        tree.guide_depth = 2
        tree.auto_expand = False
        yield tree
        if not self.clusters:  # say what to add, not an empty pane
            yield Static(Text(_(NO_CLUSTERS_SHORT)), id="clusters-empty")

    def on_mount(self) -> None:
        self._build()

    @property
    def cluster_tree(self) -> ClusterTree:
        return self.query_one(ClusterTree)

    def set_focused(self, cluster: str) -> None:
        self.focused_cluster = cluster
        self._relabel()

    def set_health(self, health: ClusterHealth) -> None:
        self.health[health.cluster] = health
        self._relabel()

    def _build(self) -> None:
        tree = self.cluster_tree
        tree.clear()
        for cluster in self.clusters:
            branch = tree.root.add(self._cluster_label(cluster), data=Ref(cluster.name),
                                   expand=True)
            for node in cluster.ranked:
                branch.add_leaf(self._node_label(cluster, node.name),
                                data=Ref(cluster.name, node.name))

    def _relabel(self) -> None:
        # closing: Textual removes the tree before its pane, while the watch cycle's
        # timer may still tick
        trees = self.query(ClusterTree) if self.is_mounted else None
        if not trees:
            return
        by_name = {c.name: c for c in self.clusters}
        for branch in trees.first().root.children:
            cluster = by_name[branch.data.cluster]  # type: ignore[union-attr]
            branch.set_label(self._cluster_label(cluster))
            for leaf in branch.children:
                if leaf.data is not None and leaf.data.node is not None:
                    leaf.set_label(self._node_label(cluster, leaf.data.node))
            health = self.health.get(cluster.name)
            self._router_lines(branch, health.router if health is not None else None)
            self._job_lines(branch, health.slurm if health is not None else None)

    def _job_lines(self, branch: TreeNode[Ref], status: SlurmStatus | None) -> None:
        """A Slurm cluster's jobs (when a health check asked its Slurm), after the nodes;
        made again only when what they say changed."""
        cluster = branch.data.cluster  # type: ignore[union-attr]
        labels = job_labels(status) if status is not None else []
        if self._jobs.get(cluster) == [str(label) for label in labels]:
            return
        for line in lines_of(branch, RefKind.JOB):
            line.remove()
        for label in labels:
            branch.add_leaf(label, data=Ref(cluster, kind=RefKind.JOB))
        self._jobs[cluster] = [str(label) for label in labels]

    def _router_lines(self, branch: TreeNode[Ref], status: RouterStatus | None) -> None:
        """The router (when a health check found one) and the models it holds."""
        cluster = branch.data.cluster  # type: ignore[union-attr]
        line = next(iter(lines_of(branch, RefKind.ROUTER)), None)
        if status is None:
            if line is not None:
                line.remove()
                self._routers.pop(cluster, None)
            return
        host = status.address.removeprefix("http://").removesuffix("/v1")
        # no container while nothing serves is how it should be (stop removes it): dim
        style = "green" if status.ready else "dim" if status.state == MISSING else "bold red"
        label = Text.assemble((ROUTER, style), " ", _("router"), " ")
        if not status.ready:  # before the address: what a narrow pane must still show
            label.append(f"{status.state} ", style=style)
        label.append(host, style="dim")
        if line is None:
            line = branch.add(label, data=Ref(cluster, kind=RefKind.ROUTER), expand=True)
        else:
            line.set_label(label)
        models = tuple(status.models)
        if self._routers.get(cluster) != models or (not line.children and models):
            line.remove_children()
            for model in models:
                line.add_leaf(Text(model), data=Ref(cluster, kind=RefKind.ROUTER))
            self._routers[cluster] = models

    def _cluster_label(self, cluster: Cluster) -> Text:
        focused = cluster.name == self.focused_cluster
        health = self.health.get(cluster.name)
        text = Text(cluster.name, style="bold underline" if focused else "")
        text.append(f" · {len(cluster.nodes)}", style="dim")
        mark = supervision_mark(health.supervision, health.checked_at, short=True,
                                serving=health.serving) if health is not None else None
        supervised = mark is not None and health is not None and \
            health.supervision is not None and health.supervision.state == "supervised"
        if health is not None and health.serving and not supervised:
            text.append("  " + _("serving"), style="green")  # supervised: green says it
        if mark is not None:
            text.append("  " + mark.text, style=mark.style)
        return text

    def _node_label(self, cluster: Cluster, node: str) -> Text:
        icon, style = reachability(self.health.get(cluster.name), node)
        return Text.assemble((icon, style), " ", node)

    def select_cluster_line(self, cluster: str) -> None:
        """Put the tree cursor on a cluster's line (for cycling and the palette)."""
        for branch in self.cluster_tree.root.children:
            if branch.data is not None and branch.data.cluster == cluster:
                self.cluster_tree.move_cursor(branch)
                return

    def current(self) -> Ref | None:
        node: TreeNode[Ref] | None = self.cluster_tree.cursor_node
        return node.data if node is not None else None

    @on(Tree.NodeSelected)
    def _on_selected(self, event: Tree.NodeSelected[Ref]) -> None:
        event.stop()
        ref = event.node.data
        if ref is None:
            return
        if ref.cluster != self.focused_cluster:
            self.post_message(ClusterFocused(ref.cluster))
        if ref.node is not None:
            self.post_message(NodeChosen(ref.cluster, ref.node))
