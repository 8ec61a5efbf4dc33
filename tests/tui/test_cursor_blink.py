"""``cursor_blink=False`` (the tests', the screenshots') holds for every text box the
dashboard makes, not only the recipe form's: a pane's filter blinking on its own made a
snapshot show its cursor or not, by how late on a loaded machine it was taken."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tui.support import make_app, open_and_type

BOXES = [("3", "slash", "#nodes-filter"), ("2", "slash", "#recipes-filter"),
         ("5", "slash", "#logs-search")]


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


async def test_the_operators_dashboard_still_blinks() -> None:
    app = make_app(cursor_blink=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await open_and_type(pilot, "slash", *"spark")
        await pilot.pause()
        assert app.screen.query_one("#nodes-filter", Input).cursor_blink is True
