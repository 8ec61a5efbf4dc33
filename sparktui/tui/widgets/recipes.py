"""Recipes pane: every recipe of the recipes folder; a broken one shows its error inline.

``m`` (form), ``E`` ($EDITOR) and ``d`` (duplicate) post :class:`RecipesPane.EditRequested`;
the dashboard runs them (``sparktui.tui.controllers.recipes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from sparktui.config.models import Cluster
from sparktui.errors import Problem
from sparktui.i18n import _
from sparktui.tui.actions import Action, Target, bindings
from sparktui.tui.messages import RecipeChosen, RecipeHighlighted
from sparktui.tui.viewmodel.recipes import (
    RecipeEntry,
    fit_first,
    render_problems,
    short_problem,
)


class RecipeList(OptionList):
    BINDINGS = bindings(Target.RECIPE_LIST)


def _prompt(entry: RecipeEntry, cluster: Cluster | None,
            misfit: str | None = None) -> Group | Text:
    summary = entry.summary(cluster)  # the plan's count on the cluster in focus
    if entry.ok and misfit is not None:  # after the ones that fit, dimmed, with why
        return Group(Text(entry.name, style="bold dim"), Text(summary, style="dim"),
                     Text("✗ " + misfit, style="dim italic"))
    if entry.ok:
        return Group(Text(entry.name, style="bold"), Text(summary, style="dim"))
    lines = [Text.assemble(("⚠ ", "bold red"), (entry.name, "bold red"))]
    lines += [Text(short_problem(p), style="italic") for p in entry.problems[:3]]
    return Group(*lines)


class RecipesPane(Vertical):
    BINDINGS = bindings(Target.RECIPES)

    @dataclass
    class EditRequested(Message):
        """Edit the recipe in the form, in $EDITOR, or copy it under a new name."""

        name: str
        how: Action  # edit (the form), open_editor or duplicate

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entries: list[RecipeEntry] = []
        self.misfits: dict[str, str] = {}
        """Why a recipe does not fit the cluster in focus (those sort last)."""
        self._cluster: Cluster | None = None
        self._scanned: list[RecipeEntry] = []  # in the folder's order
        self._fitted = False
        self._preferred = False  # a recipe was asked for (a reload keeps it)
        self.dir_problems: list[Problem] = []
        self.filter_text = ""

    def compose(self) -> ComposeResult:
        box = Input(placeholder=_("filter recipes"), id="recipes-filter", classes="filter")
        box.display = False
        yield box
        yield RecipeList(id="recipes-list")

    @property
    def option_list(self) -> RecipeList:
        return self.query_one(RecipeList)

    def set_entries(self, entries: list[RecipeEntry], dir_problems: list[Problem],
                    prefer: str | None = None) -> None:
        """Show ``entries``; the cursor stays on its recipe (or goes to ``prefer``)."""
        self._scanned = entries
        self._preferred = self._preferred or prefer in {e.name for e in entries}
        self.entries, self.misfits = fit_first(entries, self._cluster)
        self.dir_problems = dir_problems
        self._fill(prefer)

    def fit_to(self, cluster: Cluster | None) -> None:
        """Order for ``cluster``: the recipes that fit it first. The cursor stays on its
        recipe, except the first time when nobody chose it and it does not fit: then it
        goes to the first one (one that fits, if any does)."""
        if self._fitted and cluster == self._cluster:
            return  # the same cluster shown again: nothing moves
        first, self._fitted, self._cluster = not self._fitted, True, cluster
        self.entries, self.misfits = fit_first(self._scanned, cluster)
        here = self.selected
        self._fill(None if first and not self._preferred and here in self.misfits else here,
                   force=True)

    def select(self, name: str) -> bool:
        """Put the cursor on recipe ``name`` (clearing a filter that hides it)."""
        if self.entry(name) is None:
            return False
        if name not in (e.name for e in self._visible()):
            self.filter_text = ""
            self.action_close_filter()
        self._fill(name, force=True)
        return self.selected == name

    def action_edit(self) -> None:
        self._request(Action.EDIT)

    def action_open_editor(self) -> None:
        self._request(Action.OPEN_EDITOR)

    def action_duplicate(self) -> None:
        self._request(Action.DUPLICATE)

    def _request(self, how: Action) -> None:
        if (name := self.selected) is not None:
            self.post_message(self.EditRequested(name, how))

    def _visible(self) -> list[RecipeEntry]:
        needle = self.filter_text.lower()
        return [e for e in self.entries if needle in e.name.lower()]

    def _fill(self, prefer: str | None = None, force: bool = False) -> None:
        if not self.is_mounted:
            return
        options = self.option_list
        keep = prefer if force or self.selected is None else self.selected
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
        options.add_options(Option(_prompt(e, self._cluster, self.misfits.get(e.name)),
                                   id=e.name)
                            for e in visible)
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
