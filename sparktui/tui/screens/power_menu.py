"""Which power action (``p`` on the clusters pane): on, off, or switch from another cluster.

Choosing only names the action; the confirmation (a fresh health check, the plan in words,
a typed name when the cluster serves) comes next, so this list carries no risk of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from sparktui.i18n import _
from sparktui.tui.markup import esc
from sparktui.tui.viewmodel.runs import power_title
from sparktui.tui.widgets.footer import FittingFooter


@dataclass(frozen=True)
class PowerChoice:
    action: str  # "on", "off" or "switch"
    source: str | None  # the cluster powered off (off, switch)
    target: str | None  # the cluster powered on (on, switch)


def power_choices(cluster: str, others: list[str], *, switch_only: bool = False
                  ) -> list[tuple[PowerChoice, str]]:
    """The choices for ``cluster`` (the one under the cursor), each with its label;
    ``others``: the clusters a switch may come from, the likeliest first."""
    choices = [] if switch_only else [PowerChoice("on", None, cluster),
                                      PowerChoice("off", cluster, None)]
    choices += [PowerChoice("switch", other, cluster) for other in others if other != cluster]
    return [(choice, power_title(choice)) for choice in choices]


class PowerMenuScreen(ModalScreen[PowerChoice | None]):
    BINDINGS = [
        Binding("escape", "cancel", _("Cancel"), id="power_menu.cancel"),
        Binding("q", "cancel", _("Cancel"), show=False, id="power_menu.close_q"),
    ]

    def __init__(self, cluster: str, choices: list[tuple[PowerChoice, str]]) -> None:
        super().__init__()
        self.cluster = cluster
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="power-menu-box", classes="modal-box") as box:
            box.border_title = esc(_("Power of {cluster}").format(cluster=self.cluster))
            box.border_subtitle = _("Enter chooses · Esc cancels")
            yield Static(Text(_("Through Home Assistant. The next screen checks the nodes' "
                                "health and asks for confirmation."), style="dim"),
                         id="power-menu-what")
            yield OptionList(*(Option(Text(label), id=str(i))
                               for i, (_choice, label) in enumerate(self.choices)),
                             id="power-menu-list")
        yield FittingFooter()

    @on(OptionList.OptionSelected, "#power-menu-list")
    def _on_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
