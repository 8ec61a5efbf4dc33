"""Recipes pane: every recipe of the recipes folder; a broken one shows its error inline."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from sparktui.errors import Problem
from sparktui.i18n import _
from sparktui.tui.messages import RecipeChosen, RecipeHighlighted
from sparktui.tui.state import RecipeEntry, render_problems, short_problem


class RecipeList(OptionList):
    BINDINGS = [Binding("enter", "select", _("Plan"), id="recipes.select")]


def _prompt(entry: RecipeEntry) -> Group | Text:
    if entry.ok:
        return Group(Text(entry.name, style="bold"), Text(entry.summary(), style="dim"))
    lines = [Text.assemble(("⚠ ", "bold red"), (entry.name, "bold red"))]
    lines += [Text(short_problem(p), style="italic") for p in entry.problems[:3]]
    return Group(*lines)


class RecipesPane(Vertical):
    BINDINGS = [Binding("escape", "close_filter", _("Clear filter"), show=False,
                        id="recipes.unfilter")]

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: list[RecipeEntry] = []
        self.dir_problems: list[Problem] = []
        self.filter_text = ""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        box = Input(placeholder=_("filter recipes"), id="recipes-filter", classes="filter")
        box.display = False
        yield box
        yield RecipeList(id="recipes-list")

    def on_mount(self) -> None:
        self.query_one("#recipes-filter", Input).cursor_blink = self._cursor_blink

    @property
    def option_list(self) -> RecipeList:
        return self.query_one(RecipeList)

    def set_entries(self, entries: list[RecipeEntry], dir_problems: list[Problem]) -> None:
        self.entries = entries
        self.dir_problems = dir_problems
        self._fill()

    def _visible(self) -> list[RecipeEntry]:
        needle = self.filter_text.lower()
        return [e for e in self.entries if needle in e.name.lower()]

    def _fill(self) -> None:
        if not self.is_mounted:
            return
        options = self.option_list
        keep = self.selected
        options.clear_options()
        if self.dir_problems:
            options.add_option(Option(Text(render_problems(self.dir_problems), style="red"),
                                      disabled=True))
            return
        visible = self._visible()
        if not visible:
            text = _("no recipe matches") if self.entries else _("no recipes in this folder")
            options.add_option(Option(Text(text, style="dim"), disabled=True))
            return
        options.add_options(Option(_prompt(e), id=e.name) for e in visible)
        names = [e.name for e in visible]
        options.highlighted = names.index(keep) if keep in names else 0

    @property
    def selected(self) -> str | None:
        """The recipe under the cursor."""
        if not self.is_mounted:
            return None
        options = self.option_list
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return option.id

    def entry(self, name: str | None) -> RecipeEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    @on(OptionList.OptionHighlighted)
    def _on_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(RecipeHighlighted(event.option.id))

    @on(OptionList.OptionSelected)
    def _on_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(RecipeChosen(event.option.id))

    # -- filter -----------------------------------------------------------------------------

    def open_filter(self) -> None:
        box = self.query_one("#recipes-filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        box = self.query_one("#recipes-filter", Input)
        box.value = ""
        box.display = False
        self.option_list.focus()

    @on(Input.Changed, "#recipes-filter")
    def _on_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value
        self._fill()

    @on(Input.Submitted, "#recipes-filter")
    def _on_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value:
            event.input.display = False
        self.option_list.focus()
