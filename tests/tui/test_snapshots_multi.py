"""Snapshots of two recipes serving on one cluster: the nodes pane (a row per recipe on
a node), the header (the first recipe and "+1"), the telemetry table's engine rows and
the wall. Update with:
python -m pytest -n 0 tests/tui/test_snapshots_multi.py --snapshot-update"""

from __future__ import annotations

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.status import LogLine
from sparktui.plan.build import build_plan
from sparktui.plan.render import render
from sparktui.tui.messages import HealthUpdated, LogsArrived, TelemetryUpdated
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.viewmodel.health import node_workloads, serving_of
from sparktui.tui.viewmodel.runs import shares_seen
from sparktui.tui.widgets.telemetry_table import engine_lines
from tui.multi_support import OSS, QWEN, two_recipes_frame, two_recipes_health
from tui.support import EXAMPLE_CONFIG, RECIPES, make_app
from tui.test_snapshots_actions import Host, _settle

SMALL = (80, 24)
MEDIUM = (120, 40)


LINES = [LogLine(f"spark1/{QWEN}", "INFO qwen ready"), LogLine(f"spark1/{OSS}", "INFO oss up"),
         LogLine(f"spark2/{QWEN}", "INFO rank 1 joined")]


async def _two_recipes(pilot: Pilot) -> None:
    dashboard = pilot.app.dashboard
    dashboard.post_message(HealthUpdated(two_recipes_health()))
    dashboard.post_message(TelemetryUpdated(two_recipes_frame()))
    dashboard.post_message(LogsArrived("2nodes", LINES))
    await pilot.pause(0.2)


async def test_each_recipe_row_shows_its_own_last_log_line():
    app = make_app()
    async with app.run_test(size=(200, 60)) as pilot:  # room for the whole lines
        await eventually_async(lambda: app.dashboard.cluster == "2nodes", look=pausing(pilot))
        await _two_recipes(pilot)
        table = app.dashboard.nodes.table

        def last(key: str) -> str:
            return table.get_row(key)[-1].plain if key in table.rows else ""

        await eventually_async(lambda: last("spark1") == "INFO qwen ready", look=pausing(pilot))
        assert last(f"spark1\x00{OSS}") == "INFO oss up"
        assert last("spark2") == "INFO rank 1 joined"
        assert app.dashboard.nodes.current_node() == "spark1"


def test_two_recipes_dashboard_80x24(snap_compare):
    assert snap_compare(make_app(), terminal_size=SMALL, run_before=_two_recipes)


def test_two_recipes_dashboard_120x40(snap_compare):
    assert snap_compare(make_app(), terminal_size=MEDIUM, run_before=_two_recipes)


def test_two_recipes_wall_80x24(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=SMALL, run_before=_two_recipes)


def test_two_recipes_wall_120x40(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=MEDIUM, run_before=_two_recipes)


def test_a_row_per_recipe_and_an_engine_row_each():
    health = two_recipes_health()
    spark1 = next(n for n in health.nodes if n.node == "spark1")
    assert [w.recipe for w in node_workloads(spark1)] == [QWEN, OSS]  # main one first
    serving = serving_of(health)
    assert serving.others == 1 and serving.running == 3 and serving.waiting == 1
    assert serving.port == 30001  # the engine's own port, not its node's first head's
    rows = [line.plain for line in engine_lines(two_recipes_frame(), 4, " ")]
    assert rows[1].split()[:2] == [OSS, "spark1:30001"]
    assert rows[2].split()[:2] == [QWEN, "spark1:30000"]
    assert "412" in rows[2] and "2/1" in rows[2]


def test_narrow_engine_rows_cut_no_figure():
    """The nodes pane at 80 columns (46, 48 wide): every figure and its header whole, the
    recipes' names take what is left (before: ``run/wait…`` and TTFT cut off)."""
    for width in (46, 48):
        lines = [line.plain for line in engine_lines(two_recipes_frame(), 2, " ",
                                                     wide=False, width=width)]
        assert all(len(line) <= width for line in lines), lines
        assert lines[0].split()[1:] == ["gen", "KV", "run/wait", "TTFT", "p95"], lines
        assert lines[1].split()[1:] == ["95", "12%", "1/0", "210ms"], lines
        assert lines[2].split()[1:] == ["412", "47%", "2/1", "640ms"], lines
        assert lines[2].split()[0] == QWEN and lines[1].startswith(" gpt-oss-120b-s")
    assert engine_lines(two_recipes_frame(), 4, " ", width=200) == engine_lines(
        two_recipes_frame(), 4, " ")  # room enough: as before


@pytest.mark.parametrize("watch", [True, False], ids=["wall", "dashboard"])
async def test_both_recipe_rows_show_whole_at_80x24(watch: bool):
    """Both recipes' rows on screen with their TTFT, on the wall and on the dashboard
    (before: the second row pushed off the wall's nodes pane, TTFT cut on both)."""
    from tui.test_fit_80x24 import screen_rows

    app = make_app(watch=watch)
    async with app.run_test(size=SMALL) as pilot:
        await eventually_async(lambda: app.dashboard.cluster == "2nodes", look=pausing(pilot))
        await _two_recipes(pilot)
        pane = app.dashboard.nodes.region
        rows = [row[pane.x:pane.right] for row in screen_rows(app)[pane.y:pane.bottom]]
    for recipe, ttft in (("gpt-oss-120b-s", "210ms"), (QWEN, "640ms")):
        assert any(recipe in row and ttft in row for row in rows), "\n".join(rows)


def _glm_plan():
    loaded = load_config(EXAMPLE_CONFIG)
    return build_plan(loaded, load_recipe(RECIPES / "glm-4.5-air-mtp" / "recipe.toml"),
                      "2nodes")


def test_the_serve_preview_warns_of_shares_that_do_not_fit():
    lines = shares_seen(two_recipes_health(), _glm_plan())
    assert lines == [f"spark1: {OSS} holds 0.35 (port 30001), {QWEN} holds 0.5 (port 30000), "
                     "glm-4.5-air-mtp asks 0.9: 1.75 > 0.9",
                     f"spark2: {QWEN} holds 0.5 (port 30000), glm-4.5-air-mtp asks 0.9: "
                     "1.4 > 0.9"]
    assert shares_seen(None, _glm_plan()) == []


def _serve_preview() -> Host:
    plan = _glm_plan()
    warning = "\n".join([*shares_seen(two_recipes_health(), plan),
                         "The memory shares do not fit together: preflight will refuse."])
    return Host(ServePlanScreen(plan.recipe, plan.cluster, render(plan, "text"), warning))


def test_serve_preview_shares_80x24(snap_compare):
    assert snap_compare(_serve_preview(), terminal_size=SMALL, run_before=_settle)


def test_serve_preview_shares_120x40(snap_compare):
    assert snap_compare(_serve_preview(), terminal_size=MEDIUM, run_before=_settle)
