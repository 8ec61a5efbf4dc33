"""What the recipes pane's edit keys do: the form (``m``), ``$EDITOR`` (``E``) and
"duplicate as new recipe" (``d``). The dashboard calls these with the host, itself as the
recipe list (``RecipeShelf``) and the entry; file work is ``sparktui.config.recipe_edit``'s,
screens are ``screens.recipe_form``'s.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from textual.app import SuspendNotSupported

from sparktui.config.discovery import user_recipes_dir
from sparktui.config.recipe_edit import (
    apply_form,
    copy_recipes,
    duplicate_recipe,
    editor_command,
    form_values,
)
from sparktui.config.toml_source import read_text
from sparktui.errors import SparkError
from sparktui.i18n import _, ngettext
from sparktui.resources import shipped_recipes
from sparktui.tui.actions import Action
from sparktui.tui.controllers.host import Host, RecipeShelf
from sparktui.tui.screens.recipe_form import RecipeFormScreen, RecipeNameScreen
from sparktui.tui.viewmodel.recipes import RecipeEntry, short_problem


def run(host: Host, shelf: RecipeShelf, entry: RecipeEntry, how: Action) -> None:
    shipped = shipped_recipes()
    if shipped is not None and entry.path.resolve().is_relative_to(shipped.resolve()):
        copy = _copied(host, shelf, entry, shipped)
        if copy is None:
            return
        entry = copy
    if how is Action.EDIT:
        edit_in_form(host, shelf, entry)
    elif how is Action.OPEN_EDITOR:
        edit_in_editor(host, shelf, entry)
    elif how is Action.DUPLICATE:
        duplicate(host, shelf, entry)


def _copied(host: Host, shelf: RecipeShelf, entry: RecipeEntry,
            shipped: Path) -> RecipeEntry | None:
    """A shipped example is inside the installed package, replaced on every upgrade: the
    first key says so, the second copies the examples into the user's recipes folder and
    goes on with the copy (the others come along, so none leaves the list)."""
    target = user_recipes_dir()
    if not host.session.copy_offered:
        host.session.copy_offered = True
        host.notify(_("{recipe} is a shipped example inside the installed package: edits "
                      "would be lost on upgrade. Press the key again to copy the examples "
                      "into {folder} and edit the copy.").format(recipe=entry.name,
                                                                 folder=target),
                    severity="warning", timeout=10)
        return None
    try:
        copied = copy_recipes(shipped, target)
    except OSError as exc:
        host.notify(_("could not copy the examples into {folder}: {error}").format(
            folder=target, error=exc), severity="error")
        return None
    host.session.use_recipes(target)
    shelf.reload_recipes()
    shelf.select_recipe(entry.name)
    host.notify(ngettext("copied {n} example into {folder}", "copied {n} examples into {folder}",
                         len(copied)).format(n=len(copied), folder=target), timeout=6)
    return shelf.recipe_entry(entry.name)


def edit_in_form(host: Host, shelf: RecipeShelf, entry: RecipeEntry) -> None:
    """The form, unless the file is not TOML at all (then only an editor can help)."""
    try:
        text = read_text(entry.path)  # bounded; a FIFO is a problem, not a hang
        values = form_values(text, entry.path)
    except SparkError as exc:
        host.notify(_("{recipe}: {problem}. Fix it with E ($EDITOR).").format(
            recipe=entry.name, problem=short_problem(exc.problems[0])), severity="error")
        return
    except OSError as exc:
        host.notify(str(exc), severity="error")
        return
    problems = apply_form(text, values, entry.path).problems

    def done(saved: bool | None) -> None:
        if saved:
            shelf.reload_recipes()
            host.notify(_("saved {path}").format(path=entry.path), timeout=4)

    host.push_screen(RecipeFormScreen(entry.name, entry.path, values, problems), done)


def edit_in_editor(host: Host, shelf: RecipeShelf, entry: RecipeEntry) -> None:
    """``$VISUAL``/``$EDITOR``/``vi`` on the recipe's file with the dashboard suspended."""
    command = [*editor_command(os.environ), str(entry.path)]
    try:
        with host.suspend():
            subprocess.run(command, check=False)
    except SuspendNotSupported:
        host.notify(_("this terminal cannot hand over to an editor; edit {path} "
                     "outside, the dashboard reloads it").format(path=entry.path),
                   severity="warning")
        return
    except OSError as exc:
        host.notify(_("could not run {editor}: {error}").format(editor=command[0], error=exc),
                   severity="error")
        return
    shelf.reload_recipes()
    reloaded = shelf.recipe_entry(entry.name)
    if reloaded is not None and not reloaded.ok and reloaded.problems:
        host.notify(short_problem(reloaded.problems[0]), title=entry.name, severity="error")


def duplicate(host: Host, shelf: RecipeShelf, entry: RecipeEntry) -> None:
    """Ask a new name, copy the recipe there, put the cursor on the copy."""

    def done(name: str | None) -> None:
        if not name:
            return
        try:
            path = duplicate_recipe(host.session.recipes_dir, entry.path, name)
        except SparkError as exc:
            host.notify(short_problem(exc.problems[0]), severity="error")
            return
        except OSError as exc:
            host.notify(str(exc), severity="error")
            return
        shelf.reload_recipes()
        shelf.select_recipe(name)
        host.notify(_("created {path}").format(path=path), timeout=4)

    host.push_screen(RecipeNameScreen(host.session.recipes_dir, entry.name), done)
