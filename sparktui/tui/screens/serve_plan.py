"""Before serve: the exact plan (``render(plan, "text")``), then Serve or Cancel."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from sparktui.i18n import _
from sparktui.tui.markup import esc
from sparktui.tui.widgets.footer import FittingFooter


class ServePlanScreen(ModalScreen[bool]):
    """Nothing runs until Serve is pressed; Cancel has the focus."""

    BINDINGS = [
        Binding("escape", "cancel", _("Cancel"), id="serve_plan.cancel"),
        Binding("n", "cancel", _("Cancel"), show=False, id="serve_plan.no"),
    ]
    AUTO_FOCUS = "#serve-cancel"

    def __init__(self, recipe: str, cluster: str, plan_text: str, warning: str = "") -> None:
        super().__init__()
        self.recipe = recipe
        self.cluster = cluster
        self.plan_text = plan_text
        self.warning = warning

    def compose(self) -> ComposeResult:
        with Vertical(id="serve-box", classes="modal-box") as box:
            box.border_title = esc(_("Serve {recipe} on {cluster}").format(
                recipe=self.recipe, cluster=self.cluster))
            box.border_subtitle = _("Esc or n cancels")
            note = Text(_("Preflight checks every node before anything starts; then the "
                          "hooks, the workers, the head, and the wait for /v1/models."),
                        style="dim")
            if self.warning:
                note = Text(self.warning, style="bold yellow")
            yield Static(note, id="serve-note")
            with VerticalScroll(id="serve-plan"):
                yield Static(Text(self.plan_text), id="serve-plan-text")
            with Horizontal(classes="modal-buttons"):
                yield Button(_("Cancel"), id="serve-cancel")
                yield Button(_("Serve"), id="serve-ok", variant="success")
        yield FittingFooter()

    @on(Button.Pressed, "#serve-ok")
    def _on_serve(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#serve-cancel")
    def _on_cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)
