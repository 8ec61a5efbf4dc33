"""``m``/``d`` on a shipped example of an installed wheel: edits there would be lost on
the next upgrade, so the first key says so and the second copies the examples into the
user's recipes folder and goes on with the copy.

The wheel install is stood in for by pointing ``shipped_recipes`` (which finds the
wheel's ``_data/recipes``) at a copy of the examples: installing a wheel per test would
prove the same lookup at many times the cost, and tests/test_config_packaging.py proves
the wheel carries the examples there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from polling import eventually_async, pausing

from sparktui.config.discovery import user_recipes_dir
from sparktui.config.recipe_edit import SCHEMA_FILE
from sparktui.tui.controllers import recipes as recipe_keys
from sparktui.tui.screens.recipe_form import RecipeFormScreen
from tui.support import RECIPES, make_app

GLM = "glm-4.5-air-mtp"


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site-packages" / "sparktui" / "_data" / "recipes"
    shutil.copytree(RECIPES, folder)
    monkeypatch.setattr(recipe_keys, "shipped_recipes", lambda: folder)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return folder


async def test_m_on_a_shipped_example_offers_then_copies_and_edits_the_copy(shipped: Path):
    before = (shipped / GLM / "recipe.toml").read_text(encoding="utf-8")
    user = user_recipes_dir()
    app = make_app(recipes_dir=shipped)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is app.dashboard  # the offer, not the form
        assert not user.exists()
        assert any("shipped example" in str(n.message) for n in app._notifications)
        await pilot.press("m")
        await eventually_async(lambda: isinstance(app.screen, RecipeFormScreen),
                               look=pausing(pilot))
        form = app.screen
        assert form.path == user / GLM / "recipe.toml"
        assert app.session.recipes_dir == user
        await pilot.press("escape")
        await eventually_async(lambda: app.screen is app.dashboard, look=pausing(pilot))
        # every example came along (none leaves the list), and the schema their
        # ``#:schema`` line names
        assert sorted(p.name for p in user.iterdir()) == sorted(
            [SCHEMA_FILE, *(p.parent.name for p in shipped.glob("*/recipe.toml"))])
        assert [e.name for e in app.dashboard.recipes.entries] != []
        assert all(user in e.path.parents for e in app.dashboard.recipes.entries)
    assert (shipped / GLM / "recipe.toml").read_text(encoding="utf-8") == before


async def test_a_users_own_recipe_is_never_overwritten_by_the_copy(shipped: Path):
    user = user_recipes_dir()
    (user / GLM).mkdir(parents=True)
    mine = 'engine = "vllm"\n# mine\n'
    (user / GLM / "recipe.toml").write_text(mine, encoding="utf-8")
    app = make_app(recipes_dir=shipped)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m", "m")
        await pilot.pause()
    assert (user / GLM / "recipe.toml").read_text(encoding="utf-8") == mine
    assert (user / "qwen3-30b-tmux" / "recipe.toml").is_file()
