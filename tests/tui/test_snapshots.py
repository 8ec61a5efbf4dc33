"""Snapshots of the dashboard. Update with: python -m pytest tests/tui --snapshot-update"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from sparktui.tui.app import SparkApp
from sparktui.tui.messages import HealthUpdated, LogsArrived
from tui.support import make_app, serving_health, split_health, two_node_lines

SMALL = (120, 40)
LARGE = (200, 60)


def _dashboard(pilot: Pilot):
    app = pilot.app
    assert isinstance(app, SparkApp) and app.dashboard is not None
    return app.dashboard


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.2)  # a log flush (20 Hz) and the resulting layout


def test_dashboard_120x40(snap_compare, app):
    assert snap_compare(app, terminal_size=SMALL)


def test_dashboard_200x60(snap_compare, app):
    assert snap_compare(app, terminal_size=LARGE)


def test_broken_recipe_inline(snap_compare, broken_recipes: Path):
    """The broken recipe sorts first: its error shows in the list and in red as the plan."""
    assert snap_compare(make_app(recipes_dir=broken_recipes), terminal_size=SMALL)


def test_plan_preview(snap_compare, app):
    """qwen3-235b-2node (picked by name: the recipe list grows), enter: the plan tab takes
    the focus."""
    async def run_before(pilot: Pilot) -> None:
        assert _dashboard(pilot).recipes.select("qwen3-235b-2node")
        await pilot.press("enter")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_logs_two_nodes_merged(snap_compare, app):
    async def run_before(pilot: Pilot) -> None:
        await pilot.press("5")
        _dashboard(pilot).post_message(LogsArrived("2nodes", two_node_lines()))
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_nodes_with_health(snap_compare, app):
    async def run_before(pilot: Pilot) -> None:
        _dashboard(pilot).post_message(HealthUpdated(serving_health()))
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_nodes_unreachable(snap_compare, app):
    async def run_before(pilot: Pilot) -> None:
        _dashboard(pilot).post_message(HealthUpdated(split_health()))
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_help_modal(snap_compare, app):
    assert snap_compare(app, terminal_size=SMALL, press=["question_mark"])


def test_watch_120x40(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=SMALL)


def test_watch_200x60(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=LARGE)


def test_watch_serving_with_logs_200x60(snap_compare):
    """The wall screen as it looks in use: health and logs of a serving cluster."""
    async def run_before(pilot: Pilot) -> None:
        dashboard = _dashboard(pilot)
        dashboard.post_message(HealthUpdated(serving_health()))
        dashboard.post_message(LogsArrived("2nodes", two_node_lines(40)))
        await _settle(pilot)

    assert snap_compare(make_app(watch=True), terminal_size=LARGE, run_before=run_before)


def test_watch_help_modal(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=SMALL, press=["question_mark"])
