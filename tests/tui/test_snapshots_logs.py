"""Snapshots of the logs pane's search and level filter, and of the recipe form.

Update with: python -m pytest tests/tui/test_snapshots_logs.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot
from textual.widgets import Input

from sparktui.engine.status import LogLine
from sparktui.tui.app import SparkApp
from sparktui.tui.messages import HealthUpdated, LogsArrived
from tui.support import RECIPES, make_app, open_and_type, serving_health, two_node_lines

SMALL = (120, 40)


def failing_lines() -> list[LogLine]:
    """The loading lines, then spark1 runs out of memory with a traceback."""
    return [*two_node_lines(30),
            LogLine("spark2", "WARNING 06-15 15:07:01 [scheduler.py:88] Sequence group 7 is "
                              "preempted by PreemptionMode.RECOMPUTE"),
            LogLine("spark1", "ERROR 06-15 15:07:02 [core.py:412] EngineCore hit an exception"),
            LogLine("spark1", "Traceback (most recent call last):"),
            LogLine("spark1", '  File "/usr/lib/python3/dist-packages/vllm/core.py", line 412, '
                              "in step"),
            LogLine("spark1", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                              "2.00 GiB"),
            LogLine("spark2", "INFO 06-15 15:07:03 [api_server.py:97] Shutting down")]


@pytest.fixture
def recipes(tmp_path: Path) -> Path:
    folder = tmp_path / "recipes"
    for source in sorted(RECIPES.glob("*/recipe.toml")):
        (folder / source.parent.name).mkdir(parents=True)
        (folder / source.parent.name / "recipe.toml").write_text(
            source.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


async def _logs(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, SparkApp) and app.dashboard is not None
    await pilot.press("5")
    app.dashboard.post_message(HealthUpdated(serving_health()))
    app.dashboard.post_message(LogsArrived("2nodes", failing_lines()))
    # The keys that follow act on these lines: wait until they are in the view (a fixed
    # pause was too short on a loaded machine, and `E` then found no error).
    view = app.dashboard.logs.view
    await eventually_async(lambda: view.line_count == len(failing_lines()), look=pausing(pilot))

    def at_the_end() -> bool:
        # Following, the view ends at the last line; but lines written while the tab's
        # layout was still settling can leave it a line short, or not, by timing. Pin it,
        # so the keys that follow start from one place.
        if view.max_scroll_y > 0 and view.is_vertical_scroll_end:
            return True
        view.scroll_end(animate=False, immediate=True, x_axis=False)
        return False

    await eventually_async(at_the_end, look=pausing(pilot))
    await pilot.pause()


def test_logs_search_highlight(snap_compare, app):
    """``/shard 1`` then Enter: every match styled, the current one marked, view paused."""
    async def run_before(pilot: Pilot) -> None:
        await _logs(pilot)
        await open_and_type(pilot, "slash", *"shard 1", "enter")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_logs_level_filter_error(snap_compare, app):
    """``v``: ERROR+ keeps the error and its traceback."""
    async def run_before(pilot: Pilot) -> None:
        await _logs(pilot)
        await pilot.press("v")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_logs_first_error(snap_compare, app):
    """``E``: the first error line marked and in view."""
    async def run_before(pilot: Pilot) -> None:
        await _logs(pilot)
        await pilot.press("E")
        await eventually_async(lambda: not pilot.app.dashboard.logs.follow,
                               look=pausing(pilot))  # marked
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_recipe_form(snap_compare, recipes: Path):
    assert snap_compare(make_app(recipes_dir=recipes), terminal_size=SMALL, press=["m"])


def test_recipe_form_with_errors(snap_compare, recipes: Path):
    """A port out of range and a broken env line: each error under its field."""
    async def run_before(pilot: Pilot) -> None:
        await pilot.press("m")
        await pilot.pause()
        form = pilot.app.screen
        form.query_one("#field-port", Input).value = "99999"
        form.query_one("#field-env").text = "VLLM_ATTENTION_BACKEND=FLASHINFER\nNCCL_DEBUG"
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)

    assert snap_compare(make_app(recipes_dir=recipes), terminal_size=SMALL,
                        run_before=run_before)
