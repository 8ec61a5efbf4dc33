"""Recipes edited in place: the form, $EDITOR, duplicate, and live reload of edits on disk."""

from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path

import pytest
from polling import eventually_async, pausing
from textual.widgets import Input, Static, TextArea

from sparktui.config.loader import load_config
from sparktui.config.recipe_edit import (
    apply_form,
    duplicate_recipe,
    editor_command,
    form_values,
    name_problem,
    with_schema_directive,
)
from sparktui.tui.app import SparkApp, TuiOptions, create_app
from sparktui.tui.screens.recipe_form import RecipeFormScreen, RecipeNameScreen
from tui.support import BROKEN_RECIPE, EXAMPLE_CONFIG, RECIPES, fixed_clock, make_app

GLM = "glm-4.5-air-mtp"


@pytest.fixture
def recipes(tmp_path: Path) -> Path:
    """A writable copy of the shipped recipes."""
    folder = tmp_path / "recipes"
    for source in sorted(RECIPES.glob("*/recipe.toml")):
        (folder / source.parent.name).mkdir(parents=True)
        (folder / source.parent.name / "recipe.toml").write_text(
            source.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def _plan_text(app: SparkApp) -> str:
    assert app.dashboard is not None
    return app.dashboard.plan.text


async def _type(pilot, widget: Input, text: str) -> None:
    widget.focus()
    await eventually_async(lambda: pilot.app.focused is widget,
                           look=pausing(pilot))  # focus lands a step later
    widget.value = ""
    await pilot.press(*text)


# -- the form -------------------------------------------------------------------------------


async def test_form_save_keeps_comments_and_key_order(recipes: Path):
    path = recipes / GLM / "recipe.toml"
    before = path.read_text(encoding="utf-8")
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, RecipeFormScreen)
        assert form.query_one("#field-port", Input).value == "30000"
        assert form.query_one("#field-args", TextArea).text.splitlines()[:2] == [
            "--served-model-name", "glm-4.5-air"]
        await _type(pilot, form.query_one("#field-port", Input), "8000")
        form.query_one("#field-env", TextArea).text = \
            "VLLM_ATTENTION_BACKEND=FLASHINFER\nNCCL_DEBUG=WARN"
        args = form.query_one("#field-args", TextArea)
        args.text = args.text + "\n--max-model-len\n65536"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, RecipeFormScreen)
        after = path.read_text(encoding="utf-8")
        expected = before.replace("port = 30000", "port = 8000").replace(
            '  "--enable-auto-tool-choice",\n',
            '  "--enable-auto-tool-choice",\n  "--max-model-len", "65536",\n').replace(
            'VLLM_ATTENTION_BACKEND = "FLASHINFER"\n',
            'VLLM_ATTENTION_BACKEND = "FLASHINFER"\nNCCL_DEBUG = "WARN"\n')
        assert after == expected  # comments, key order and layout untouched
        assert "pipeline_parallel_size = 0   # auto: fill the nodes" in after
        entry = app.dashboard.recipes.entry(GLM)
        assert entry is not None and entry.loaded.recipe.port == 8000
        assert "port 8000" in _plan_text(app)
        assert [p.name for p in path.parent.iterdir()] == ["recipe.toml"]  # no temp left


async def test_invalid_port_shows_inline_and_writes_nothing(recipes: Path):
    path = recipes / GLM / "recipe.toml"
    before = path.read_text(encoding="utf-8")
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, RecipeFormScreen)
        error = form.query_one("#field-port-error", Static)
        assert not error.display
        await _type(pilot, form.query_one("#field-port", Input), "99999")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # still open
        assert error.display and "port: must be at most 65535" in str(error.render())
        assert form.query_one("#field-port", Input).has_class("-invalid")
        assert app.focused is form.query_one("#field-port", Input)
        await _type(pilot, form.query_one("#field-port", Input), "80a")
        await _type(pilot, form.query_one("#field-tensor_parallel_size", Input), "0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "port: expected integer, got '80a'" in str(error.render())
        tp_error = form.query_one("#field-tensor_parallel_size-error", Static)
        assert "tensor_parallel_size: must be at least 1" in str(tp_error.render())
        assert path.read_text(encoding="utf-8") == before
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecipeFormScreen)
        assert path.read_text(encoding="utf-8") == before


async def test_form_shows_what_is_already_wrong(broken_recipes: Path):
    app = make_app(recipes_dir=broken_recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.dashboard.recipe == "broken-engine"
        await pilot.press("m")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, RecipeFormScreen)
        problems = form.query_one("#form-problems", Static)
        assert problems.display and "recipe.toml:2: engine: must be one of" in \
            str(problems.render())


async def test_form_refuses_a_file_that_is_not_toml(recipes: Path):
    (recipes / GLM / "recipe.toml").write_text("engine = \n", encoding="utf-8")
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert not isinstance(app.screen, RecipeFormScreen)
        assert "Fix it with E" in list(app._notifications)[-1].message


# -- $EDITOR ---------------------------------------------------------------------------------


def _editor(tmp_path: Path, monkeypatch, new_text: str) -> None:
    """$EDITOR is a script that writes ``new_text``; the app 'suspends' to nothing."""
    script = tmp_path / "fake-editor.py"
    script.write_text("import sys, pathlib\n"
                      f"pathlib.Path(sys.argv[1]).write_text({new_text!r})\n", encoding="utf-8")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    monkeypatch.setattr(SparkApp, "suspend", lambda self: contextlib.nullcontext())


async def test_open_in_editor_then_reload(recipes: Path, tmp_path: Path, monkeypatch):
    path = recipes / GLM / "recipe.toml"
    _editor(tmp_path, monkeypatch, path.read_text(encoding="utf-8").replace(
        "port = 30000", "port = 8111"))
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("E")
        await pilot.pause()
        assert app.dashboard.recipes.entry(GLM).loaded.recipe.port == 8111
        assert "port 8111" in _plan_text(app)


async def test_editor_leaving_a_broken_file_shows_the_error(recipes: Path, tmp_path: Path,
                                                            monkeypatch):
    _editor(tmp_path, monkeypatch, BROKEN_RECIPE)
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("E")
        await pilot.pause()
        entry = app.dashboard.recipes.entry(GLM)
        assert entry is not None and not entry.ok
        assert "engine" in list(app._notifications)[-1].message
        assert _plan_text(app).startswith(f"{GLM} does not load:")


# -- duplicate --------------------------------------------------------------------------------


async def test_duplicate_creates_the_folder_and_selects_it(recipes: Path):
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, RecipeNameScreen)
        name = prompt.query_one("#name-input", Input)
        assert name.value == f"{GLM}-copy"
        error = prompt.query_one("#name-error", Static)
        for bad, says in (("qwen3-235b-2node", "already exists"), ("../up", "not a recipe name")):
            await _type(pilot, name, bad)
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is prompt and error.display and says in str(error.render())
        await _type(pilot, name, "glm-fast")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, RecipeNameScreen)
        copy = recipes / "glm-fast" / "recipe.toml"
        assert copy.read_text(encoding="utf-8") == with_schema_directive(
            (recipes / GLM / "recipe.toml").read_text(encoding="utf-8"))
        assert app.dashboard.recipes.selected == "glm-fast"
        await pilot.pause()
        assert app.dashboard.recipe == "glm-fast"
        assert _plan_text(app).startswith("Plan: recipe glm-fast")


# -- live reload --------------------------------------------------------------------------------


async def test_external_recipe_edit_shows_up_at_the_default_poll(recipes: Path):
    """The files are looked at every 2 s by default: an edit in another editor reaches the
    list and the plan (how soon is a setting, asserted as one; the wait bounds a failure)."""
    path = recipes / GLM / "recipe.toml"
    app = make_app(recipes_dir=recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "port 30000" in _plan_text(app)
        path.write_text(path.read_text(encoding="utf-8").replace("port = 30000", "port = 8222"),
                        encoding="utf-8")
        assert app.session.options.reload_seconds == 2.0
        await eventually_async(lambda: "port 8222" in _plan_text(app), look=pausing(pilot))
        assert app.dashboard.recipes.entry(GLM).summary().endswith(":8222")


async def test_broken_external_edit_shows_the_error_inline(recipes: Path):
    app = make_app(recipes_dir=recipes, reload_seconds=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        (recipes / GLM / "recipe.toml").write_text(BROKEN_RECIPE, encoding="utf-8")
        (recipes / "new-one").mkdir()
        (recipes / "new-one" / "recipe.toml").write_text(
            (recipes / "gpt-oss-120b-sglang" / "recipe.toml").read_text(encoding="utf-8"),
            encoding="utf-8")
        pane = app.dashboard.recipes
        await eventually_async(lambda: pane.entry("new-one") is not None, look=pausing(pilot))
        entry = pane.entry(GLM)
        assert entry is not None and not entry.ok
        assert "recipe.toml:2: engine: must be one of" in entry.summary()
        assert pane.selected == GLM  # the cursor stays on the recipe being edited
        assert _plan_text(app).startswith(f"{GLM} does not load:")
        assert app.dashboard.plan.has_class("-error")


async def test_config_edits_rebuild_the_dashboard(tmp_path: Path, recipes: Path):
    path = tmp_path / "config.toml"
    path.write_text(EXAMPLE_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    options = TuiOptions(clock=fixed_clock, cursor_blink=False, animations=False,
                         reload_seconds=0.1)
    app = create_app(load_config(path), recipes, None, False, options=options,
                     reload_config=lambda: load_config(path))

    def shown(name: str) -> bool:
        dashboard = app.dashboard
        return (dashboard is not None and dashboard.is_mounted and app.screen is dashboard
                and name in app.cluster_names())

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.focus_cluster("2nodes-b")
        first = app.dashboard
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("4nodes-switch", "four"), encoding="utf-8")
        await eventually_async(lambda: shown("four"), look=pausing(pilot))
        assert app.dashboard is not first
        assert app.cluster == "2nodes-b"  # the cluster in focus stays
        path.write_text(text.replace("[[clusters]]", "[[clusters]\n", 1), encoding="utf-8")
        await eventually_async(lambda: any(n.title == "config not reloaded"
                                                  for n in app._notifications), look=pausing(pilot))
        assert shown("four")  # a broken edit leaves the dashboard as it was
        path.write_text(text, encoding="utf-8")
        await eventually_async(lambda: shown("4nodes-switch"), look=pausing(pilot))
        await pilot.pause(0.2)


# -- the editing functions themselves ------------------------------------------------------------


def test_apply_form_without_changes_is_the_same_text():
    for path in sorted(RECIPES.glob("*/recipe.toml")):
        text = path.read_text(encoding="utf-8")
        result = apply_form(text, form_values(text, path), path)
        assert result.ok and result.text == text, path


def test_apply_form_adds_removes_and_checks(tmp_path: Path):
    path = RECIPES / "gpt-oss-120b-sglang" / "recipe.toml"
    text = path.read_text(encoding="utf-8")
    values = form_values(text, path)
    result = apply_form(text, {**values, "env": "A=1\n\nB = two words ", "args": ""}, path)
    assert result.ok
    assert result.text.endswith('args = []\n\n[env]\nA = "1"\nB = "two words"\n')
    back = apply_form(result.text, {**values, "env": ""}, path)
    assert "[env]" not in back.text
    result = apply_form(text, {**values, "pipeline_parallel_size": "2", "env": "oops"}, path)
    assert [(p.field, p.code) for p in result.problems] == [("env", "env_line"),
                                                            ("pipeline_parallel_size",
                                                             "pp_vllm_only")]


def test_names_duplicates_and_editor(tmp_path: Path, recipes: Path):
    assert name_problem(recipes, "ok-name_1.2") is None
    assert name_problem(recipes, GLM).code == "recipe_exists"
    for bad in ("", ".hidden", "a/b", "-x", "x" * 65, "a b"):
        assert name_problem(recipes, bad).code == "recipe_name_invalid", bad
    path = duplicate_recipe(recipes, recipes / GLM / "recipe.toml", "twin")
    assert path == recipes / "twin" / "recipe.toml" and path.is_file()
    assert editor_command({"VISUAL": "code -w", "EDITOR": "nano"}) == ["code", "-w"]
    assert editor_command({"EDITOR": "nano"}) == ["nano"]
    assert editor_command({}) == ["vi"]
