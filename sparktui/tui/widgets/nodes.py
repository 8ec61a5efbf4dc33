"""Nodes pane: one row per node of the cluster in focus, from config and the last health;
sorted by any column (``>`` the next, ``<`` the other way round, an arrow on the header)
and filtered by name (``/``): :mod:`sparktui.tui.viewmodel.node_sort`."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey

from sparktui.config.models import Cluster, Node
from sparktui.engine.api import ClusterHealth, NodeHealth, TelemetryFrame, Workload, log_source
from sparktui.i18n import N_, _
from sparktui.labels import container_state
from sparktui.tui.actions import Target, bindings
from sparktui.tui.messages import NodeChosen
from sparktui.tui.viewmodel.health import node_workloads, strip_ansi, uptime
from sparktui.tui.viewmodel.node_sort import COLUMNS, NodeOrder, ordered
from sparktui.tui.widgets.paint import show
from sparktui.tui.widgets.telemetry_table import telemetry_table

LAST_LINE_HZ = 4
STATE_STYLES = {"running": "green", "restarting": "yellow", "created": "yellow",
                "exited": "red", "dead": "bold red"}
ROLES = {"head": N_("head"), "worker": N_("worker")}


CONTAINER, CONTAINER_MIN = 5, 12  # the container column, and how narrow it may get
NARROW_DROPS = (4, 3, 0, 6)
"""The columns a narrow pane gives up, in turn (fabric, then ssh: the details show them;
rank: the rows are in rank order; uptime), so the table needs no horizontal scrollbar."""
ROW_SEP = "\x00"
"""Between a node and a recipe in the key of a node's second and later rows."""


def _key(node: Node, work: Workload | None, first: bool) -> str:
    return node.name if first or work is None else f"{node.name}{ROW_SEP}{work.recipe}"


class NodeTable(DataTable):
    BINDINGS = bindings(Target.NODE_TABLE)


def _columns(order: NodeOrder | None = None) -> list[str]:
    headers = [_("rank"), _("node"), _("role"), _("ssh"), _("fabric"), _("container"),
               _("uptime"), _("last log")]
    if order is not None and not order.plain and COLUMNS.index(order.column) < len(headers):
        at = COLUMNS.index(order.column)
        headers[at] = f"{headers[at]} {order.marker()}"
    return headers


class NodesPane(Vertical):
    BINDINGS = bindings(Target.NODES)

    def __init__(self, clock: Callable[[], float], *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self.cluster: Cluster | None = None
        self.health: ClusterHealth | None = None
        self.last_lines: dict[str, str] = {}
        self._log_column: ColumnKey | None = None
        self._room = 10
        self._widths: list[int] = []
        self._stale_cells: set[str] = set()
        self._cell_timer: Timer | None = None
        self._cells_painted = 0.0
        self.telemetry: TelemetryFrame | None = None
        self._row_nodes: list[str] = []  # the node of each row (a node may have several)
        self._row_tags: dict[str, list[str]] = {}
        self.order = NodeOrder()
        self._headers: list[str] = []

    def compose(self) -> ComposeResult:
        box = Input(placeholder=_("filter nodes by name"), id="nodes-filter", classes="filter")
        box.display = False
        yield box
        table = NodeTable(id="nodes-table", cursor_type="row", zebra_stripes=False)
        yield table
        yield Static(id="nodes-telemetry")

    def set_telemetry(self, frame: TelemetryFrame | None) -> None:
        """Per-node figures with their sparklines, under the table (hidden until a sample)."""
        if frame is not None and (self.cluster is None or frame.cluster != self.cluster.name):
            return
        self.telemetry = frame
        if self.order.column in ("cpu", "mem", "gpu"):
            self._fill()  # the figures are the order
        self._paint_telemetry()

    def _paint_telemetry(self) -> None:
        if not self.is_mounted:
            return
        box = self.query_one("#nodes-telemetry", Static)
        box.display = self.telemetry is not None
        if self.telemetry is not None and self.cluster is not None:
            marked = None if self.order.plain else (self.order.column, self.order.marker())
            show(box, telemetry_table(self.cluster, self.telemetry, self.size.width - 2,
                                       nodes=[n.name for n in self._ordered()], marked=marked))

    @property
    def table(self) -> NodeTable:
        return self.query_one(NodeTable)

    def show(self, cluster: Cluster, health: ClusterHealth | None) -> None:
        if self.cluster is None or cluster.name != self.cluster.name:
            self.last_lines = {}
        if self.cluster is not None and cluster.name != self.cluster.name:
            self.telemetry = None
        self.cluster, self.health = cluster, health
        self._fill()
        self._paint_telemetry()

    def set_last_lines(self, lines: dict[str, str]) -> None:
        """Update only the last-log cells, at most ``LAST_LINE_HZ`` times a second: under a
        log flood every batch would otherwise repaint the table."""
        self.last_lines.update({k: strip_ansi(v) for k, v in lines.items()})
        self._stale_cells.update(lines)
        if not self.is_mounted or self._log_column is None or self._cell_timer is not None:
            return
        wait = self._cells_painted + 1 / LAST_LINE_HZ - time.monotonic()
        if wait <= 0:
            self._paint_last_lines()
        else:
            self._cell_timer = self.set_timer(wait, self._paint_last_lines)

    def _paint_last_lines(self) -> None:
        self._cell_timer = None
        self._cells_painted = time.monotonic()
        tags, self._stale_cells = self._stale_cells, set()
        if self._log_column is None:
            return
        table = self.table
        for key, sources in self._row_tags.items():
            if key in table.rows and not tags.isdisjoint(sources):
                table.update_cell(key, self._log_column, self._last_cell(key))

    def current_node(self) -> str | None:
        if self.cluster is None or not self.table.row_count:
            return None
        row = self.table.cursor_row
        return self._row_nodes[row] if 0 <= row < len(self._row_nodes) else None

    def on_resize(self, event: Resize) -> None:
        self._fill()
        self._paint_telemetry()

    def _fill(self) -> None:
        """Rows for the cluster's nodes, in columns sized here (not by the table).

        Cells update in place while the nodes and widths stay the same; otherwise the table
        is rebuilt. DataTable's own auto widths settle on idle and can leave a cell
        rendered at the old width, so widths are never left to it.
        """
        if not self.is_mounted or self.cluster is None:
            return
        table = self.table
        lines = self._lines()
        rows = [self._row(node, work, first) for node, work, first in lines]
        headers = _columns(self.order)
        widths, room = self._widths_for(headers, rows, CONTAINER)
        if room < cell_len(headers[-1]) and self.health is not None \
                and len(self.health.recipes) > 1:
            # several recipes in a narrow pane: a running row says its recipe's name, which
            # matters more there than the word "running"
            for row, (node, work, _first) in zip(rows, lines, strict=True):
                row[CONTAINER] = self._state(self._node_health(node.name), work, compact=True)
            widths, room = self._widths_for(headers, rows, CONTAINER)
        kept = list(range(len(headers)))
        for drop in NARROW_DROPS:
            if room >= cell_len(headers[-1]):
                break
            kept.remove(drop)
            room += widths[drop] + 2
        headers, widths = [headers[i] for i in kept], [widths[i] for i in kept[:-1]]
        rows = [[row[i] for i in kept] for row in rows]
        self._room = max(cell_len(headers[-1]), room)
        widths.append(self._room)
        keys = [_key(node, work, first) for node, work, first in lines]
        self._row_nodes = [node.name for node, _work, _first in lines]
        # the log tags whose last line a row shows: its recipe's on the node (several
        # recipes on the cluster), or the node's
        self._row_tags = {key: [*([log_source(node.name, work.recipe)] if work else []),
                                *([node.name] if first else [])]
                          for key, (node, work, first) in zip(keys, lines, strict=True)}
        if widths != self._widths or [key.value for key in table.rows] != keys \
                or headers != self._headers:
            self._widths, self._headers = widths, headers
            table.clear(columns=True)
            columns = [table.add_column(h, width=w) for h, w in zip(headers, widths, strict=True)]
            self._log_column = columns[-1]
            for key, row in zip(keys, rows, strict=True):
                table.add_row(*row[:-1], self._last_cell(key), key=key)
            return
        for key, row in zip(keys, rows, strict=True):
            cells = [*row[:-1], self._last_cell(key)]
            for column, cell in zip(list(table.columns), cells, strict=True):
                if table.get_cell(key, column) != cell:
                    table.update_cell(key, column, cell)

    def _lines(self) -> list[tuple[Node, Workload | None, bool]]:
        """One row per node, and one more for each other recipe on it (several recipes
        share a cluster): the node's first row carries its key, its last log line."""
        lines: list[tuple[Node, Workload | None, bool]] = []
        for node in self._ordered():
            nh = self._node_health(node.name)
            works: list[Workload | None] = [*(node_workloads(nh) if nh is not None else [])]
            for i, work in enumerate(works or [None]):
                lines.append((node, work, i == 0))
        return lines

    def _ordered(self) -> list[Node]:
        assert self.cluster is not None
        return ordered(self.cluster.ranked, self.order, self.health, self.telemetry,
                       self.last_lines)

    # -- sort and filter ----------------------------------------------------------------

    def action_sort_next(self) -> None:
        self._reorder(self.order.next())

    def action_sort_reverse(self) -> None:
        self._reorder(self.order.turned())

    def _reorder(self, order: NodeOrder) -> None:
        node = self.current_node()
        self.order = order
        self._fill()
        self._paint_telemetry()
        if node in self._row_nodes:  # the cursor stays on its node
            self.table.move_cursor(row=self._row_nodes.index(node))

    def open_filter(self) -> None:
        box = self.query_one("#nodes-filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        box = self.query_one("#nodes-filter", Input)
        box.value = ""
        box.display = False
        self._reorder(self.order.filtered(""))
        self.table.focus()

    @on(Input.Changed, "#nodes-filter")
    def _on_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._reorder(self.order.filtered(event.value))

    @on(Input.Submitted, "#nodes-filter")
    def _on_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value:
            event.input.display = False
        self.table.focus()

    def _row(self, node: Node, work: Workload | None, first: bool) -> list[Text]:
        nh = self._node_health(node.name)
        ssh = node.ssh_ip if node.ssh_port == 22 else f"{node.ssh_ip}:{node.ssh_port}"
        if node.local:
            ssh = _("local")
        role = Text(_(ROLES.get(work.role, work.role)) if work else "",
                    style="bold" if work and work.role == "head" else "")
        if not first:
            return [Text(""), Text(node.name, style="dim"), role, Text(""), Text(""),
                    self._state(nh, work), Text(uptime(work, self.clock()) if work else ""),
                    Text("")]
        return [Text(str(node.rank), justify="right"), Text(node.name, style="bold"), role,
                Text(ssh), Text(node.fabric_ip), self._state(nh, work),
                Text(uptime(work, self.clock()) if work else ""), Text("")]

    def _last_cell(self, key: str) -> Text:
        line = next((self.last_lines[t] for t in self._row_tags.get(key, [key])
                     if t in self.last_lines), "")
        text = Text(line, style="dim", no_wrap=True)
        text.truncate(self._room, overflow="ellipsis")
        return text

    def _node_health(self, name: str) -> NodeHealth | None:
        if self.health is None:
            return None
        return next((n for n in self.health.nodes if n.node == name), None)

    def _widths_for(self, headers: list[str], rows: list[list[Text]],
                    container: int) -> tuple[list[int], int]:
        """Every column's width but the last log line's, and the room left for it."""
        widths = [max([cell_len(h), *(r[i].cell_len for r in rows)])
                  for i, h in enumerate(headers[:-1])]
        # the last log line gets what is left, so nothing spills out of the pane
        room = self.size.width - sum(widths) - 2 * len(headers) - 2
        short = cell_len(headers[-1]) - room
        if short > 0 and widths[container] > CONTAINER_MIN:  # a long recipe name gives way
            widths[container] = max(CONTAINER_MIN, widths[container] - short)
            for row in rows:
                row[container].truncate(widths[container], overflow="ellipsis")
            room = self.size.width - sum(widths) - 2 * len(headers) - 2
        return widths, room

    def _state(self, nh: NodeHealth | None, work: Workload | None,
               compact: bool = False) -> Text:
        """``compact``: a running workload is its recipe's name in green, nothing more."""
        if nh is None:  # the header says why: not connected, or checking
            return Text("-", style="dim")
        if not nh.reachable:
            return Text(_("unreachable"), style="bold red")
        if nh.docker_error is not None:
            return Text(_("docker down"), style="bold red")
        if work is None:
            return Text(_("none"), style="dim")
        if not work.ours:  # listed, never stopped or restored: not sparktui's
            return Text(_("foreign") + f" {work.state}", style="bold yellow")
        if compact and work.running:
            return Text(work.recipe, style="bold green")
        label = container_state(work.state, work.exit_code, short=True)
        text = Text(label, style=STATE_STYLES.get(work.state, ""))
        if self.health is not None and len(self.health.recipes) > 1:
            text.append(f" {work.recipe}", style="bold")  # several recipes: whose row
        return text

    @on(DataTable.RowSelected)
    def _on_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.cluster is not None and event.row_key.value is not None:
            node = event.row_key.value.partition(ROW_SEP)[0]
            self.post_message(NodeChosen(self.cluster.name, node))
