"""The dashboard driven by keys: recipes and plans, clusters, details, errors, workers."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from polling import eventually_async, pausing
from textual.widgets import Static

from sparktui.config.loader import load_config
from sparktui.errors import SparkError
from sparktui.tui import app as app_module
from sparktui.tui.app import SparkApp, create_app, run_app
from sparktui.tui.messages import HealthFailed, HealthUpdated
from sparktui.tui.screens.details import DetailsScreen
from sparktui.tui.screens.error import ConfigErrorScreen
from sparktui.tui.screens.help import HelpScreen
from tui.support import EXAMPLE_CONFIG, RECIPES, RecordingEngine, make_app, serving_health


def _plan_text(app: SparkApp) -> str:
    assert app.dashboard is not None
    return app.dashboard.plan.text


async def test_selecting_a_recipe_updates_the_plan_preview(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert _plan_text(app).startswith("Plan: recipe glm-4.5-air-mtp on cluster 2nodes")
        await pilot.press("down")
        await pilot.pause()
        assert _plan_text(app).startswith("Plan: recipe gpt-oss-120b-sglang on cluster 2nodes")
        # llama, qwen3-235b (pools-toy needs 4 nodes: listed after the ones that fit)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert _plan_text(app).startswith("Plan: recipe qwen3-235b-2node")
        assert app.focused is app.dashboard.plan


async def test_picking_a_cluster_moves_everything_to_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("1")  # cluster tree: 2nodes, spark1, spark2, 2nodes-b
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert app.cluster == "2nodes-b"
        assert app.dashboard.cluster == "2nodes-b"
        assert "on cluster 2nodes-b" in _plan_text(app).splitlines()[0]
        assert app.dashboard.nodes.table.get_row_at(0)[1].plain == "spark3"


async def test_plan_error_is_shown_for_a_cluster_too_small(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('[[clusters]]\nname = "solo"\n'
                    'nodes = [{ name = "s1", ssh_ip = "10.0.0.21", rank = 0 }]\n',
                    encoding="utf-8")
    app = make_app(config=load_config(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.dashboard.recipe == "gpt-oss-120b-sglang"  # the first that fits solo
        assert _plan_text(app).startswith("Plan: recipe gpt-oss-120b-sglang on cluster solo")
        assert app.dashboard.recipes.select("glm-4.5-air-mtp")  # listed after, with why
        await pilot.pause()
        assert _plan_text(app).splitlines() == [
            "No plan for glm-4.5-air-mtp on solo:", "cluster 'solo' has 1 node, recipe needs 2"]
        assert app.dashboard.plan.has_class("-error")
        assert app.dashboard.recipes.select("gpt-oss-120b-sglang")
        await pilot.pause()
        assert _plan_text(app).startswith("Plan: recipe gpt-oss-120b-sglang on cluster solo")
        assert not app.dashboard.plan.has_class("-error")


async def test_broken_recipe_shows_its_error_inline(broken_recipes: Path):
    app = make_app(recipes_dir=broken_recipes)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        entry = app.dashboard.recipes.entry("broken-engine")
        assert entry is not None and not entry.ok
        assert "engine" in entry.summary()
        assert app.dashboard.recipe == "broken-engine"
        assert _plan_text(app).startswith("broken-engine does not load:")
        assert "recipe.toml:2: engine:" in _plan_text(app)


async def test_missing_recipes_folder_is_an_inline_error(tmp_path: Path):
    app = make_app(recipes_dir=tmp_path / "nope")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.dashboard.recipes.dir_problems[0].code == "recipe_dir_missing"
        assert _plan_text(app) == "Pick a recipe to see its launch plan."


async def test_recipe_filter_takes_keys_without_running_actions(app):
    async with app.run_test(size=(120, 40)) as pilot:
        recipes = app.dashboard.recipes
        box = recipes.query_one("#recipes-filter")
        await pilot.press("slash")  # keys typed before the box has the focus are the pane's
        await eventually_async(lambda: app.focused is box, look=pausing(pilot))
        await pilot.press(*"qwen3-2", "s", "x")
        await pilot.pause()
        assert recipes.filter_text == "qwen3-2sx"
        assert app.action_log == []  # "s" and "x" went to the filter, not to serve/stop
        await pilot.press("escape")
        await pilot.press("slash")
        await eventually_async(lambda: app.focused is box, look=pausing(pilot))
        await pilot.press(*"qwen3-2", "enter")
        await pilot.pause()
        assert recipes.selected == "qwen3-235b-2node"
        assert app.focused is recipes.option_list


async def test_enter_on_a_node_opens_its_details(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.dashboard.post_message(HealthUpdated(serving_health()))
        await pilot.press("3", "enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailsScreen)
        body = app.screen.query_one(Static).render()
        assert "qwen3-235b-2node" in str(body) and "10.0.0.11" in str(body)
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailsScreen)


async def test_help_modal_opens_and_closes(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_mutating_keys_without_engine_only_notify(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s", "x", "e", "t", "p")
        await pilot.pause()
        assert app.action_log == ["serve", "stop", "exec", "tmux", "power"]
        assert len(app._notifications) == 5


async def test_health_message_fills_nodes_and_header(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.dashboard.post_message(HealthUpdated(serving_health()))
        await pilot.pause()
        table = app.dashboard.nodes.table
        assert [table.get_row_at(i)[5].plain for i in range(2)] == ["running", "running"]
        assert table.get_row_at(0)[2].plain == "head"
        assert table.get_row_at(0)[6].plain == "2h 14m"  # started 2h 14m 59.9s ago
        app.dashboard.post_message(HealthFailed("2nodes", "boom"))
        await pilot.pause()
        assert app.dashboard.health_error["2nodes"] == "boom"


def _broken_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('ssh_user = "ops"\n[[clusters]]\nname = "a"\nnodes = []\n',
                    encoding="utf-8")
    return path


async def test_broken_config_shows_an_error_screen(tmp_path: Path):
    path = _broken_config(tmp_path)
    try:
        load_config(path)
    except SparkError as exc:
        error = exc
    app = create_app(error, RECIPES, None, False,
                     reload_config=lambda: load_config(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfigErrorScreen)
        shown = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "config.toml:4" in shown
        await pilot.press("s", "x", "1", "slash")  # dashboard keys do nothing here
        assert app.action_log == []
        await pilot.press("r")  # still broken
        await pilot.pause()
        assert isinstance(app.screen, ConfigErrorScreen)
        path.write_text(EXAMPLE_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
        await pilot.press("r")
        await pilot.pause()
        assert app.dashboard is not None and app.screen is app.dashboard
        assert app.cluster == "2nodes"


def test_run_app_loads_like_the_cli(tmp_path: Path, monkeypatch):
    """run_app builds the app from the same helpers as the CLI. The config is validated
    (and the engine built) after the first frame: tests/tui/test_dashboard_startup.py
    runs that part on the real hosts; a broken config is no crash."""
    from sparktui.tui.startup import PendingConfig

    built: list[SparkApp] = []
    monkeypatch.setattr(app_module.SparkApp, "run", lambda self: built.append(self))
    args = argparse.Namespace(config=_broken_config(tmp_path), recipes=RECIPES, lang=None,
                              watch=True)
    assert run_app(args) == 0
    pending = built[0].config
    assert isinstance(pending, PendingConfig) and built[0].session.watch_mode
    assert pending.path == args.config and pending.clusters == (("a", ()),)
    with pytest.raises(SparkError):
        pending.load()  # what the error screen will show
    args.config = EXAMPLE_CONFIG
    assert run_app(args) == 0
    assert built[1].config.load().config.clusters[0].name == "2nodes"
    assert built[1].session.recipes_dir == RECIPES
    assert built[0].engine is None and built[1].engine is None  # nothing connects yet


async def test_refresh_worker_polls_without_overlap():
    engine = RecordingEngine(health_delay=0.15)
    app = make_app(engine=engine, refresh_seconds=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: sum(c[0] == "health" for c in engine.calls) >= 3,
                               look=pausing(pilot))
        assert engine.max_active == 1  # re-armed after each check: never two at once
        assert app.dashboard.health["2nodes"].serving
        await pilot.press("r")  # a manual refresh cancels the pending one, no overlap
        await pilot.pause(0.3)
        assert engine.max_active == 1


async def test_no_refresh_while_a_modal_is_open():
    engine = RecordingEngine()
    app = make_app(engine=engine, refresh_seconds=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: len(engine.calls) >= 2, look=pausing(pilot))
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        before = len(engine.calls)
        await pilot.pause(0.5)
        assert len(engine.calls) == before
        await pilot.press("escape")
        await eventually_async(lambda: len(engine.calls) > before, look=pausing(pilot))


async def test_log_worker_feeds_the_logs_pane():
    engine = RecordingEngine()
    app = make_app(engine=engine)
    async with app.run_test(size=(120, 40)) as pilot:
        logs = app.dashboard.logs
        await eventually_async(lambda: len(logs.lines()) == 2, look=pausing(pilot))
        assert [line.text for line in logs.lines()] == ["hello from 2nodes",
                                                        "hello again from 2nodes"]
        assert app.dashboard.nodes.last_lines["spark2"] == "hello again from 2nodes"
        app.focus_cluster("2nodes-b")
        await eventually_async(lambda: len(logs.lines()) == 2 and "b" in logs.lines()[0].text,
                               look=pausing(pilot))
        assert [line.text for line in logs.lines()] == ["hello from 2nodes-b",
                                                        "hello again from 2nodes-b"]
        assert ("logs", "2nodes-b") in engine.calls
    assert ("close",) in engine.calls
