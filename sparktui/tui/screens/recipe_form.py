"""Editing a recipe in the dashboard: a form for the common fields, and the name prompt of
"duplicate as new recipe".

The form checks the would-be file exactly as loading it would (``recipe_edit.apply_form``)
and shows each problem under its field; it writes only a clean file, with tomlkit, so
comments and layout stay. Both screens return through ``dismiss``: the dashboard reloads.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from sparktui.config.recipe_edit import (
    FORM_FIELDS,
    INT_FIELDS,
    TEXT_FIELDS,
    EditResult,
    form_field,
    name_problem,
    save_form,
)
from sparktui.errors import Problem
from sparktui.i18n import _
from sparktui.tui.markup import esc
from sparktui.tui.viewmodel.recipes import short_problem
from sparktui.tui.widgets.footer import FittingFooter

LABELS = {
    "docker_image": "docker_image", "model": "model", "port": "port",
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "args": _("args (one per line)"), "env": _("env (KEY=VALUE per line)"),
}

FORM_CSS = """
RecipeFormScreen #recipe-form-box {
    width: 90%;
    max-width: 110;
    max-height: 95%;
}
RecipeFormScreen #recipe-form-box VerticalScroll {
    max-height: 31;
}
RecipeFormScreen .form-row {
    height: 1;
    margin-top: 1;
}
RecipeFormScreen .form-row Label {
    width: 24;
    color: $text-muted;
}
RecipeFormScreen .form-row Input {
    width: 1fr;
}
RecipeFormScreen .form-label {
    margin-top: 1;
    color: $text-muted;
}
RecipeFormScreen TextArea {
    height: 7;
    background: $boost;
}
RecipeFormScreen #field-env {
    height: 4;
}
RecipeFormScreen Input {
    background: $boost;
}
RecipeFormScreen .field-error {
    color: $error;
    padding-left: 24;
    height: auto;
}
RecipeFormScreen #field-args-error, RecipeFormScreen #field-env-error {
    padding-left: 0;
}
RecipeFormScreen #form-problems {
    color: $error;
    height: auto;
    margin-top: 1;
}
RecipeFormScreen #form-buttons, RecipeNameScreen #name-buttons {
    height: 1;
    margin-top: 1;
    align-horizontal: right;
}
RecipeFormScreen Button, RecipeNameScreen Button {
    margin-left: 2;
    min-width: 10;
}
RecipeNameScreen #name-box {
    width: 60;
}
RecipeNameScreen Input {
    margin-top: 1;
}
RecipeNameScreen #name-error {
    color: $error;
    height: auto;
}
"""


class RecipeFormScreen(ModalScreen[bool]):
    """The common fields of one recipe; dismisses True once the file is written."""

    DEFAULT_CSS = FORM_CSS
    BINDINGS = [
        Binding("ctrl+s", "save", _("Save"), id="form.save"),
        Binding("escape", "cancel", _("Cancel"), id="form.cancel"),
    ]

    def __init__(self, name: str, path: Path, values: dict[str, str],
                 problems: list[Problem] | None = None) -> None:
        super().__init__()
        self.recipe = name
        self.path = path
        self.values = values
        self.initial_problems = problems or []
        self.result: EditResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="recipe-form-box", classes="modal-box") as box:
            box.border_title = esc(_("Edit {recipe}").format(recipe=self.recipe))
            box.border_subtitle = _("ctrl+s saves · Esc cancels")
            with VerticalScroll():
                for name in (*TEXT_FIELDS, *INT_FIELDS):
                    with Horizontal(classes="form-row"):
                        yield Label(LABELS[name])
                        yield Input(self.values.get(name, ""), id=f"field-{name}",
                                    compact=True, type="text")
                    yield Static(id=f"field-{name}-error", classes="field-error")
                for name in ("args", "env"):
                    yield Label(LABELS[name], classes="form-label")
                    yield TextArea(self.values.get(name, ""), id=f"field-{name}", compact=True,
                                   soft_wrap=False, show_line_numbers=False)
                    yield Static(id=f"field-{name}-error", classes="field-error")
                yield Static(id="form-problems")
            with Horizontal(id="form-buttons"):
                yield Button(_("Cancel"), id="form-cancel", compact=True)
                yield Button(_("Save"), id="form-save", variant="primary", compact=True)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.show_problems(self.initial_problems)  # what is wrong with the file as it is
        self.query_one("#field-docker_image", Input).focus()

    def form(self) -> dict[str, str]:
        """The fields as typed."""
        values = {name: self.query_one(f"#field-{name}", Input).value
                  for name in (*TEXT_FIELDS, *INT_FIELDS)}
        values.update({name: self.query_one(f"#field-{name}", TextArea).text
                       for name in ("args", "env")})
        return values

    def show_problems(self, problems: list[Problem]) -> None:
        """Each problem under its field; those of other keys (or the file) below the form."""
        by_field: dict[str, list[str]] = {name: [] for name in FORM_FIELDS}
        others: list[str] = []
        for problem in problems:
            name = form_field(problem)
            if name is None:
                others.append(short_problem(problem))
            else:
                by_field[name].append(f"{problem.field}: {problem.message()}")
        for name, messages in by_field.items():
            label = self.query_one(f"#field-{name}-error", Static)
            label.update(Text("\n".join(f"⚠ {m}" for m in messages)))
            label.display = bool(messages)
            self.query_one(f"#field-{name}").set_class(bool(messages), "-invalid")
        box = self.query_one("#form-problems", Static)
        box.update(Text("\n".join(f"⚠ {m}" for m in others)))
        box.display = bool(others)

    def action_save(self) -> None:
        try:
            self.result = save_form(self.path, self.form())
        except OSError as exc:
            self.notify(_("could not write {path}: {error}").format(path=self.path, error=exc),
                        severity="error")
            return
        self.show_problems(self.result.problems)
        if self.result.ok:
            self.dismiss(True)
        else:
            first = form_field(self.result.problems[0])
            if first is not None:
                self.query_one(f"#field-{first}").focus()

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#form-save")
    def _on_save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#form-cancel")
    def _on_cancel(self) -> None:
        self.action_cancel()

    @on(Input.Submitted)
    def _on_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()


class RecipeNameScreen(ModalScreen[str | None]):
    """Asks the name of a new recipe; dismisses it once it is a free, safe folder name."""

    DEFAULT_CSS = FORM_CSS
    BINDINGS = [Binding("escape", "cancel", _("Cancel"), id="name.cancel")]

    def __init__(self, directory: Path, source: str) -> None:
        super().__init__()
        self.directory = directory
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box", classes="modal-box") as box:
            box.border_title = esc(_("Duplicate {recipe} as").format(recipe=self.source))
            box.border_subtitle = _("Enter creates · Esc cancels")
            yield Input(f"{self.source}-copy", placeholder=_("new recipe name"),
                        id="name-input")
            yield Static(id="name-error")
            with Horizontal(id="name-buttons"):
                yield Button(_("Cancel"), id="name-cancel", compact=True)
                yield Button(_("Create"), id="name-create", variant="primary", compact=True)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#name-error").display = False

    def action_create(self) -> None:
        name = self.query_one("#name-input", Input).value.strip()
        problem = name_problem(self.directory, name)
        error = self.query_one("#name-error", Static)
        if problem is None:
            self.dismiss(name)
            return
        error.update(Text(f"⚠ {problem.message()}"))
        error.display = True

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _on_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed, "#name-create")
    def _on_create(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#name-cancel")
    def _on_cancel(self) -> None:
        self.action_cancel()
