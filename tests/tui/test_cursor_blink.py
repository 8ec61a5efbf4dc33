"""``cursor_blink=False`` (the tests', the screenshots') holds for every text box the
dashboard makes, set by the app as each takes the focus: a pane's filter blinking on its
own made a snapshot show its cursor or not, by how late on a loaded machine it was
taken."""

from __future__ import annotations

import pytest
from polling import eventually_async, pausing
from textual.widgets import Input

from tui.support import make_app, open_and_type

BOXES = [("3", "slash", "#nodes-filter"), ("2", "slash", "#recipes-filter"),
         ("5", "slash", "#logs-search"), ("5", "ampersand", "#logs-filter")]


@pytest.mark.parametrize(("pane", "key", "box"), BOXES)
async def test_a_filter_box_keeps_a_steady_cursor(pane: str, key: str, box: str) -> None:
    app = make_app()  # cursor_blink=False
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press(pane)
        await open_and_type(pilot, key, *"spark")
        await pilot.pause()
        field = app.screen.query_one(box, Input)
        assert app.focused is field
        assert field.cursor_blink is False
        assert field._cursor_visible  # shown, and no timer left to hide it
        assert field._blink_timer is not None and field._blink_timer._active.is_set() is False


async def test_the_recipe_forms_fields_keep_a_steady_cursor() -> None:
    from sparktui.tui.screens.recipe_form import RecipeFormScreen

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await eventually_async(lambda: isinstance(app.screen, RecipeFormScreen)
                               and isinstance(app.focused, Input), look=pausing(pilot))
        await pilot.pause()
        assert app.focused.cursor_blink is False and app.focused._cursor_visible


async def test_the_operators_dashboard_still_blinks() -> None:
    app = make_app(cursor_blink=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await open_and_type(pilot, "slash", *"spark")
        await pilot.pause()
        assert app.screen.query_one("#nodes-filter", Input).cursor_blink is True
