"""One declaration per command (``sparktui.tui.actions``): every command has a key (or a
menu that offers it), words in all six languages and a help line, and nothing in the
dashboard or the CLI names a command by a string."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import sparktui
from sparktui.tui.actions import (
    ALL_SPECS,
    CHANGES_CLUSTER,
    SPECS,
    Action,
    Now,
    Target,
    app_spec,
    palette_specs,
)
from sparktui.tui.viewmodel.selection import Selection

PACKAGE = Path(sparktui.__file__).parent
LOCALES = PACKAGE.parent / "locales"
LANGUAGES = ("de", "en", "es", "fr", "it", "ru")
DIALOGS = {"confirm.py", "exec.py", "progress.py", "help.py", "power_menu.py",
           "recipe_form.py", "details.py", "inspect.py", "serve_plan.py", "bench_results.py"}
"""Modal dialogs: their keys (answer, close, move in a form) are their own, not commands."""


def test_every_command_has_a_key_or_a_menu_and_a_help_line():
    for spec in ALL_SPECS:
        assert spec.key is not None or spec.via is not None, spec
        if spec.via is not None:
            assert app_spec(spec.via).key is not None, spec
        if spec.title:
            assert spec.help, spec
    declared = {spec.action for spec in ALL_SPECS}
    assert declared == set(Action)  # no member without a declaration
    assert {s.action for s in SPECS if s.target is Target.APP} >= CHANGES_CLUSTER


def test_keys_are_unique_per_owner():
    for target in Target:
        keys = [s.key for s in ALL_SPECS if s.target is target and s.key is not None]
        assert len(keys) == len(set(keys)), (target, keys)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_word_of_every_command_is_in_the_catalog(lang):
    with (LOCALES / lang / "LC_MESSAGES" / "sparktui.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    words = {w for s in ALL_SPECS for w in (s.label, s.title, s.help, s.watch_help) if w}
    missing = sorted(w for w in words if not (catalog.get(w) and catalog.get(w).string))
    assert missing == [], (lang, missing)


def test_a_rule_says_why_and_the_palette_uses_the_same_rule():
    nothing = Now(Selection(cluster="duo", cluster_names=("duo",)), lambda: None)
    assert app_spec(Action.SERVE).unavailable(nothing) == \
        "pick a recipe whose plan fits this cluster"
    assert app_spec(Action.POWER_SWITCH).unavailable(nothing) == "no other cluster to switch from"
    assert app_spec(Action.STOP).unavailable(nothing) is None
    two = Now(Selection(cluster="duo", cluster_names=("duo", "solo")), lambda: None)
    assert app_spec(Action.POWER_SWITCH).unavailable(two) is None
    assert all(s.when is None or s.target is Target.APP for s in palette_specs())


def _string_commands(path: Path) -> list[str]:
    """Calls that name a command by a string literal: ``control("stop")``,
    ``run_action("serve")``, ``check_action("serve", ...)``, ``Binding("s", "serve")``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node.func, ast.Name) else ""
        position = 1 if name == "Binding" else 0
        if name in {"control", "run_action", "check_action", "Binding", "start"} \
                and len(node.args) > position and isinstance(node.args[position], ast.Constant) \
                and isinstance(node.args[position].value, str):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_nothing_names_a_command_by_a_string():
    files = [p for folder in ("tui", "cli") for p in (PACKAGE / folder).rglob("*.py")
             if not (p.parent.name == "screens" and p.name in DIALOGS)]
    assert len(files) > 40
    found = [hit for path in files for hit in _string_commands(path)]
    assert found == [], found
