"""A benchmark started from the dashboard (B) on the real engine and test hosts: behind
the confirmation's fresh health check, watched live in the progress view, kept like the
CLI's run; --watch has no way to start one."""

from __future__ import annotations

import asyncio

from bench_support import bench_setup, kept_runs
from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.plan.bench.aiperf import BenchSettings
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.progress import ProgressScreen
from tui.dashboard_support import dashboard_app
from tui.support import click

LOOKALIKE = (Why.FIGURES, Why.MULTI_NODE)  # tests/lookalike.py: why not the real vLLM


def _serving(app) -> bool:
    health = app.dashboard.health.get("test") if app.dashboard else None
    return health is not None and health.serving


def test_bench_from_the_dashboard_is_confirmed_watched_and_kept(site, tmp_path, monkeypatch):
    tokenizer = bench_setup(tmp_path, monkeypatch)
    s = site(2)
    s.hosts.node("node1").set_engine(ttft=0.05, tpot=0.01)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)
    seen: list[str] = []

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            assert app.dashboard.recipes.select("toy")
            app.flows.bench_settings = BenchSettings(
                concurrency=(1, 2), requests=8, input_tokens=16, output_tokens=10,
                tokenizer=str(tokenizer))
            await pilot.press("B")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            assert app.flows.run is None  # nothing runs before the confirmation
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            assert screen.health.serving and not screen.typed_required
            await click(pilot, "#confirm-ok")
            await eventually_async(lambda: isinstance(app.screen, ProgressScreen),
                                   settle=pilot.pause)
            run = app.flows.run

            def watch() -> bool:  # the levels' counts as they come
                seen.extend(d for e in run.events if (d := str(e.detail)) not in seen)
                return run.result is not None
            await eventually_async(watch, 240, settle=pilot.pause)
            return run

    run = asyncio.run(go())
    assert run.result.ok, run.result
    head = f"http://{s.hosts.node('node1').addr}:30011"
    assert f"benchmarking toy at {head} with aiperf 0.13.0" in seen  # no router: the head
    assert any("concurrency 1, 8/8 requests" in d for d in seen), seen
    assert any("concurrency 2, 0/8 requests" in d for d in seen), seen
    [kept] = kept_runs(tmp_path)
    assert str(run.result.detail).endswith(kept["id"] + ".json")
    assert [lv["concurrency"] for lv in kept["levels"]] == [1, 2]
    assert all(lv["requests"] == 8 and lv["errors"] == 0 for lv in kept["levels"])
    assert kept["recipe"] == "toy" and kept["engine_version"] == "0.33.0"
    assert main(s.cli("stop", "--yes")) == 0


def test_watch_mode_cannot_start_a_bench(site, tmp_path, monkeypatch):
    bench_setup(tmp_path, monkeypatch)
    s = site(2)
    app = dashboard_app(s, watch=True)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("B")
            await pilot.pause(0.2)
            assert app.screen is app.dashboard and app._flows is None
            assert "bench" not in app.action_log
            assert app.check_action("bench", ()) is False

    asyncio.run(go())
    assert kept_runs(tmp_path) == []
