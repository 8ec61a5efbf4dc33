"""What the recipes pane's edit keys do: the form (``m``), ``$EDITOR`` (``E``) and
"duplicate as new recipe" (``d``). The dashboard calls these with itself and the entry;
file work is ``sparktui.config.recipe_edit``'s, screens are ``screens.recipe_form``'s.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from sparktui.config.recipe_edit import (
    apply_form,
    duplicate_recipe,
    editor_command,
    form_values,
)
from sparktui.config.toml_source import read_text
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.tui.screens.recipe_form import RecipeFormScreen, RecipeNameScreen
from sparktui.tui.state import RecipeEntry, short_problem

if TYPE_CHECKING:
    from sparktui.tui.screens.dashboard import DashboardScreen


def _blink(dashboard: DashboardScreen) -> bool:
    options = getattr(dashboard.app, "options", None)
    return bool(getattr(options, "cursor_blink", True))


def run(dashboard: DashboardScreen, entry: RecipeEntry, how: str) -> None:
    {"form": edit_in_form, "editor": edit_in_editor, "duplicate": duplicate}[how](
        dashboard, entry)


def edit_in_form(dashboard: DashboardScreen, entry: RecipeEntry) -> None:
    """The form, unless the file is not TOML at all (then only an editor can help)."""
    app = dashboard.app
    try:
        text = read_text(entry.path)  # bounded; a FIFO is a problem, not a hang
        values = form_values(text, entry.path)
    except SparkError as exc:
        app.notify(_("{recipe}: {problem}. Fix it with E ($EDITOR).").format(
            recipe=entry.name, problem=short_problem(exc.problems[0])), severity="error")
        return
    except OSError as exc:
        app.notify(str(exc), severity="error")
        return
    problems = apply_form(text, values, entry.path).problems

    def done(saved: bool | None) -> None:
        if saved:
            dashboard.reload_recipes()
            app.notify(_("saved {path}").format(path=entry.path), timeout=4)

    app.push_screen(RecipeFormScreen(entry.name, entry.path, values, problems,
                                     cursor_blink=_blink(dashboard)), done)


def edit_in_editor(dashboard: DashboardScreen, entry: RecipeEntry) -> None:
    """``$VISUAL``/``$EDITOR``/``vi`` on the recipe's file with the dashboard suspended."""
    app = dashboard.app
    command = [*editor_command(os.environ), str(entry.path)]
    try:
        with app.suspend():
            subprocess.run(command, check=False)
    except SuspendNotSupported:
        app.notify(_("this terminal cannot hand over to an editor; edit {path} "
                     "outside, the dashboard reloads it").format(path=entry.path),
                   severity="warning")
        return
    except OSError as exc:
        app.notify(_("could not run {editor}: {error}").format(editor=command[0], error=exc),
                   severity="error")
        return
    dashboard.reload_recipes()
    reloaded = dashboard.recipes.entry(entry.name)
    if reloaded is not None and not reloaded.ok and reloaded.problems:
        app.notify(short_problem(reloaded.problems[0]), title=entry.name, severity="error")


def duplicate(dashboard: DashboardScreen, entry: RecipeEntry) -> None:
    """Ask a new name, copy the recipe there, put the cursor on the copy."""
    app = dashboard.app

    def done(name: str | None) -> None:
        if not name:
            return
        try:
            path = duplicate_recipe(dashboard.recipes_dir, entry.path, name)
        except SparkError as exc:
            app.notify(short_problem(exc.problems[0]), severity="error")
            return
        except OSError as exc:
            app.notify(str(exc), severity="error")
            return
        dashboard.reload_recipes()
        dashboard.recipes.select(name)
        app.notify(_("created {path}").format(path=path), timeout=4)

    app.push_screen(RecipeNameScreen(dashboard.recipes_dir, entry.name,
                                     cursor_blink=_blink(dashboard)), done)
