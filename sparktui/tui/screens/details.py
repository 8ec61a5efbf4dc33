"""Details of a node or a recipe, in a modal; Esc, Enter or q closes it."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sparktui.config.models import Cluster, Config, Node
from sparktui.engine.api import (
    ClusterHealth,
    NodeHealth,
    SupervisionStatus,
)
from sparktui.fmt import format_ms, format_optional
from sparktui.i18n import N_, _
from sparktui.present.supervision import restart_line, status_line
from sparktui.tui.markup import esc
from sparktui.tui.viewmodel.recipes import RecipeEntry, render_problems
from sparktui.tui.widgets.footer import FittingFooter
from sparktui.visible import visible

HISTORY_SHOWN = 20
"""Restarts the head's details list, newest last."""
LAST_LINES_SHOWN = 15


class DetailsScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", _("Close"), id="details.close"),
        Binding("enter", "dismiss", _("Close"), show=False, id="details.close_enter"),
        Binding("q", "dismiss", _("Close"), show=False, id="details.close_q"),
    ]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="details-box", classes="modal-box") as box:
            box.border_title = esc(self.title_text)
            box.border_subtitle = _("Esc closes")
            with VerticalScroll():
                yield Static(self.body)
        yield FittingFooter()


ROW_LABELS = (
    N_("supervision"), N_("cluster"), N_("rank"), N_("ssh"), N_("fabric"), N_("power"),
    N_("state"), N_("error"), N_("workload"), N_("workloads"), N_("recipe"), N_("role"),
    N_("image"), N_("port"), N_("restarts"), N_("/health"), N_("models"), N_("requests"),
    N_("file"), N_("engine"), N_("model"), N_("nodes"), N_("parallel"),
)
"""Every label of a details row, in English: the values start in one column, after the
longest label in the user's language."""


def _row(text: Text, label: str, value: object, style: str = "") -> None:
    """``label`` in English (one of ROW_LABELS), shown translated."""
    width = max(12, max(cell_len(_(known)) for known in ROW_LABELS) + 1)
    shown = _(label)
    text.append(shown + " " * (width - cell_len(shown)), style="dim")
    text.append(f"{value}\n", style=style)


def node_screen(config: Config, cluster: Cluster | None, node_name: str,
                health: ClusterHealth | None, now: float) -> DetailsScreen | None:
    """The details of ``node_name`` of ``cluster`` (None: the cluster has no such node)."""
    node = next((n for n in cluster.nodes if n.name == node_name), None) if cluster else None
    if cluster is None or node is None:
        return None
    nh = next((n for n in health.nodes if n.node == node_name), None) if health else None
    body = node_details(config, cluster.name, node, nh, health.supervision if health else None,
                        now)
    return DetailsScreen(f"{node_name} · {cluster.name}", body)


def node_details(config: Config, cluster: str, node: Node, health: NodeHealth | None,
                 supervision: SupervisionStatus | None = None, now: float = 0.0) -> Text:
    """A node's rows; the head (rank 0, where supervision is kept) adds its state and its
    restart history."""
    text = node_rows(config, cluster, node, health)
    if supervision is not None and supervision.node == node.name:
        supervision_block(text, supervision, now)
    return text


def supervision_block(text: Text, status: SupervisionStatus, now: float) -> None:
    """``status_line``, the restarts with their reasons and outcomes, and the last lines
    of the node that failed when the supervisor gave up."""
    line = status_line(status, now)
    if line is None:
        return
    text.rstrip()
    text.append("\n\n")
    style = {"supervised": "cyan", "gave_up": "bold red", "lost": "yellow",
             "unknown": "red"}.get(status.state, "")
    _row(text, N_("supervision"), line, style)
    record = status.record
    if record is None:
        return
    if record.restarts:
        text.append(_("restarts") + "\n", style="dim")
        for event in record.restarts[-HISTORY_SHOWN:]:
            text.append("  " + restart_line(event) + "\n",
                        style="" if event.ok else "yellow" if event.ok is None else "red")
    else:
        text.append(_("No restart so far.") + "\n", style="dim")
    if status.state == "gave_up" and record.last_lines:
        text.append(_("last lines of {node}:").format(node=visible(record.last_lines_node
                                                                   or "-")) + "\n", style="dim")
        for log_line in record.last_lines[-LAST_LINES_SHOWN:]:
            text.append("  " + visible(log_line) + "\n")
    text.rstrip()


def node_rows(config: Config, cluster: str, node: Node, health: NodeHealth | None) -> Text:
    text = Text()
    _row(text, N_("cluster"), cluster)
    _row(text, N_("rank"), node.rank)
    where = _("this machine") if node.local else \
        f"{config.ssh_user}@{node.ssh_ip}:{node.ssh_port}"
    _row(text, N_("ssh"), where)
    _row(text, N_("fabric"), node.fabric_ip)
    if node.entity:
        _row(text, N_("power"), node.entity)
    text.append("\n")
    if health is None:
        text.append(_("No health check yet."), style="dim")
        return text
    if not health.reachable:
        _row(text, N_("state"), _("unreachable"), "bold red")
        if health.error:
            _row(text, N_("error"), health.error, "red")
        return text
    latency = format_ms(health.latency_ms) if health.latency_ms is not None else "-"
    _row(text, N_("state"), _("reachable") + f" ({latency})", "green")
    if health.docker_error is not None:  # its workloads are unknown, never "none"
        _row(text, N_("workloads"), _("unknown: {why}").format(why=health.unanswered),
             "bold red")
        _row(text, N_("error"), visible(str(health.docker_error)), "red")
    for work in health.workloads:
        text.append("\n")
        _row(text, N_("workload"), work.name, "bold")
        _row(text, N_("recipe"), work.recipe)
        _row(text, N_("role"), work.role)
        _row(text, N_("state"), f"{work.state} {work.status}".strip())
        if work.image:
            _row(text, N_("image"), work.image)
        if work.port:
            _row(text, N_("port"), work.port)
        if work.restarts:
            _row(text, N_("restarts"), work.restarts, "yellow")
    for eng in health.engines:
        text.append("\n")
        if len(health.engines) > 1:
            _row(text, N_("recipe"), f"{eng.recipe} :{eng.port}")
        _row(text, N_("/health"), {True: "ok", False: _("failing"), None: "-"}[eng.health_ok])
        _row(text, N_("models"), ", ".join(eng.models) or "-")
        _row(text, N_("requests"), _("{r} running, {w} waiting").format(
            r=format_optional(eng.running), w=format_optional(eng.waiting)))
        if eng.error:
            _row(text, N_("error"), eng.error, "red")
    if not health.workloads and health.known:
        text.append(_("No sparktui workload on this node."), style="dim")
    return text


def recipe_details(entry: RecipeEntry) -> Text:
    text = Text()
    _row(text, N_("file"), entry.path)
    if entry.loaded is None:
        text.append("\n" + render_problems(entry.problems), style="red")
        return text
    rec = entry.loaded.recipe
    if rec.description:
        text.append(rec.description + "\n\n")
    _row(text, N_("engine"), f"{rec.engine} ({rec.runtime})")
    _row(text, N_("model"), rec.model)
    _row(text, N_("image"), rec.docker_image)
    _row(text, N_("port"), rec.port)
    _row(text, N_("nodes"), rec.required_nodes or 1)
    _row(text, N_("parallel"), f"tp {rec.tensor_parallel_size} × pp {rec.pipeline_parallel_size}")
    return text
