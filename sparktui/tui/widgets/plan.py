"""Plan preview: the selected recipe's launch plan on the cluster in focus, as text."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from sparktui.tui.viewmodel.recipes import PlanPreview
from sparktui.tui.widgets.paint import show


class PlanPane(VerticalScroll):
    """Scrollable, focusable; the text is never parsed as markup (plans contain ``[...]``)."""

    def compose(self) -> ComposeResult:
        yield Static(id="plan-text")

    text = ""
    """What the pane shows, as plain text (for tests and a later copy/save)."""

    def show(self, preview: PlanPreview) -> None:
        self.text = preview.text
        style = "" if preview.ok else "red"
        show(self.query_one("#plan-text", Static), Text(preview.text, style=style))
        self.set_class(not preview.ok, "-error")
        self.scroll_home(animate=False)

    def show_note(self, note: str) -> None:
        self.text = note
        self.query_one("#plan-text", Static).update(Text(note, style="dim"))
        self.remove_class("-error")
