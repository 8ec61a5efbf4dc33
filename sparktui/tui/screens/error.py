"""A config that does not load: its problems, instead of a crash."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sparktui.errors import Problem
from sparktui.i18n import _
from sparktui.tui.actions import Target, bindings
from sparktui.tui.widgets.footer import FittingFooter


class ConfigErrorScreen(Screen[None]):
    BINDINGS = bindings(Target.ERROR)

    def __init__(self, problems: list[Problem], reload: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.problems = problems
        self._reload = reload

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(Text(_("The config could not be loaded"), style="bold red"),
                         id="error-title")
            with VerticalScroll(id="error-problems"):
                yield Static(Text("\n".join(p.render() for p in self.problems), style="red"))
            hint = _("Fix the file, then press r to reload or q to quit.") if self._reload \
                else _("Fix the file and start sparktui again; q quits.")
            yield Static(Text(hint, style="dim"), id="error-hint")
        yield FittingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reload":
            return self._reload is not None
        return True

    def action_reload(self) -> None:
        if self._reload is not None:
            self._reload()
