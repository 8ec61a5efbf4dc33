"""The help modal: every key that does something right now (watch mode lists fewer)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sparktui.i18n import _
from sparktui.tui.widgets.footer import FittingFooter
from sparktui.tui.widgets.logs import LogsPane
from sparktui.tui.widgets.nodes import NodesPane
from sparktui.tui.widgets.recipes import RecipesPane

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import Screen

HelpRow = tuple[str, str, str]
"""(group, keys, description)"""


def help_rows(app: App, screen: Screen | None) -> list[HelpRow]:
    """Keys enabled now (each node's ``check_action``): the app's, the screen's, the logs'.

    Keys for the same action share a row (``^p :``; ``1 3 5 6`` for the panes).
    """
    rows: list[HelpRow] = []
    groups: list[tuple[str, DOMNode | None, list[BindingType]]] = [
        (_("Actions"), app, app.BINDINGS),
        (_("Panes"), screen, screen.BINDINGS if screen is not None else []),
        (_("Nodes pane"), None, NodesPane.BINDINGS), (_("Logs pane"), None, LogsPane.BINDINGS)]
    if screen is not None and not getattr(screen, "watch_mode", False):
        groups.insert(2, (_("Recipes pane"), None, RecipesPane.BINDINGS))
    for group, node, bindings in groups:
        merged: dict[str, tuple[list[str], list[str]]] = {}
        for binding in bindings:
            assert isinstance(binding, Binding)
            if node is not None and app._check_action_state(binding.action, node) is False:
                continue
            keys, descriptions = merged.setdefault(binding.action.split("(")[0], ([], []))
            keys.append(app.get_key_display(binding))
            descriptions.append(binding.description)
        for keys, descriptions in merged.values():
            text = descriptions[0] if len(set(descriptions)) == 1 else ", ".join(descriptions)
            rows.append((group, " ".join(keys), text))
    rows.append((_("More"), "space", _("fold or unfold a cluster")))
    return rows


def help_table(rows: Iterable[HelpRow]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold")
    table.add_column()
    group = None
    for row_group, keys, description in rows:
        if row_group != group:
            if group is not None:
                table.add_row("", "")
            table.add_row("", Text(row_group, style="bold underline"))
            group = row_group
        table.add_row(keys, description)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", _("Close"), id="help.close"),
        Binding("question_mark", "dismiss", _("Close"), show=False, id="help.close_q"),
        Binding("q", "dismiss", _("Close"), show=False, id="help.close_quit"),
    ]

    def __init__(self, rows: list[HelpRow], read_only: bool = False) -> None:
        super().__init__()
        self.rows = rows
        self.read_only = read_only

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="modal-box") as box:
            box.border_title = _("Keys")
            box.border_subtitle = _("Esc closes")
            with VerticalScroll():
                if self.read_only:
                    yield Static(Text(_("Read-only: serve, stop, restart, exec, shell, tmux, "
                                        "power, supervision and benchmarks are not available "
                                        "in --watch mode."),
                                      style="yellow"), id="help-readonly")
                yield Static(help_table(self.rows))
        yield FittingFooter()
