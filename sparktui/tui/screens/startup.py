"""The skeleton of the dashboard that ``sparktui`` paints as its first frame.

It shows the cluster and node names the start-up peek read from the file
(:mod:`sparktui.tui.startup`) in the dashboard's layout, until the app swaps the real
dashboard (or the config error screen) in. It owns nothing else.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from sparktui.i18n import _, ngettext
from sparktui.tui.startup import Clusters
from sparktui.tui.widgets.footer import FittingFooter


class StartupScreen(Screen[None]):
    """The dashboard's layout with the names from the file; the panes fill in shortly."""

    DEFAULT_CSS = """
    StartupScreen .startup-note { color: $text-muted; padding: 0 1; }
    """  # the layout itself is the dashboard's, from app.tcss (ids #sidebar, #nodes, ...)

    def __init__(self, clusters: Clusters, *, watch_mode: bool) -> None:
        super().__init__(classes="-watch" if watch_mode else "")
        self.clusters = clusters
        self.watch_mode = watch_mode

    def compose(self) -> ComposeResult:
        # As few widgets as will draw it: each one costs style matching before the frame.
        name, nodes = self.clusters[0] if self.clusters else ("", ())
        with Horizontal(id="header"):
            yield Static(self._header(name, nodes), id="header-left")
            if self.watch_mode:
                yield Static(Text(" " + _("READ-ONLY") + " ", style="bold reverse"),
                             id="header-right")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield Static(self._tree(), id="clusters", classes="pane")
                yield Static(_("loading recipes…"), id="recipes", classes="pane startup-note")
            with Vertical(id="main"):
                yield Static(Text("\n".join(nodes)) if nodes else _("loading…"), id="nodes",
                             classes="pane startup-note")
                yield Static(_("loading the config…"), id="tabs", classes="pane startup-note")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#clusters").border_title = _("1 Clusters")
        self.query_one("#recipes").border_title = _("2 Recipes")
        self.query_one("#nodes").border_title = _("3 Nodes")
        self.query_one("#tabs").border_title = _("Logs") if self.watch_mode else _("Plan")

    @staticmethod
    def _header(name: str, nodes: tuple[str, ...]) -> Text:
        text = Text.assemble((" sparktui ", "bold reverse"), "  ")
        if name:
            text.append(name, style="bold")
            text.append(" (" + ngettext("{n} node", "{n} nodes", len(nodes)).format(
                n=len(nodes)) + ")", style="dim")
            text.append("  ")
        text.append("○ " + _("loading…"), style="dim")
        return text

    def _tree(self) -> Text:
        text = Text()
        for i, (name, nodes) in enumerate(self.clusters):
            if i:
                text.append("\n")
            text.append("▼ " + name, style="bold")
            text.append(f" · {len(nodes)}", style="dim")
            for j, node in enumerate(nodes):
                text.append("\n" + ("└" if j == len(nodes) - 1 else "├") + " ○ " + node,
                            style="dim")
        if not self.clusters:
            text.append(_("loading…"), style="dim")
        return text
