"""The dashboard and the wall screen sampling the real test hosts."""

from __future__ import annotations

import asyncio

from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.tui.widgets.wall import WallPane
from tui.dashboard_support import dashboard_app

# A look-alike, not the real vLLM (tests/lookalike.py): set engine figures and nvidia-smi figures;
# 2-node group.
LOOKALIKE = (Why.FIGURES, Why.GPU, Why.MULTI_NODE)


def _fast(s) -> None:
    s.config_path.write_text("telemetry_interval_seconds = 0.5\n" + s.config_path.read_text())
    s.loaded = load_config(s.config_path)


def test_wall_screen_shows_the_engine_figures_and_the_deep_check(site):
    s = site(2)
    _fast(s)
    s.hosts.node("node1").set_engine(running=4, waiting=0, kv=0.3, gen_tps=250)
    s.hosts.node("node2").set_gpu(**{"utilization.gpu": 64})
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s, watch=True, refresh_seconds=0.5)
    notes: list[str] = []

    async def look():
        async with app.run_test(size=(160, 48)) as pilot:
            dashboard = app.dashboard

            def sampled() -> bool:  # the rate then spans seconds, not one interval
                frame = dashboard.telemetry.get("test")
                return bool(frame and frame.engine and frame.engine.gen_tps
                            and len(frame.history.get("engine.gen_tps", ())) >= 8)

            await eventually_async(sampled, settle=pilot.pause)
            wall = app.screen.query_one(WallPane)
            await eventually_async(lambda: wall.frame is not None, settle=pilot.pause)
            app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore
            await pilot.press("D")
            await eventually_async(lambda: bool(notes), settle=pilot.pause)
            return dashboard.telemetry["test"], wall.frame

    frame, shown = asyncio.run(look())
    assert shown is not None and shown.cluster == "test"
    assert frame.engine.running == 4 and abs(frame.engine.gen_tps - 250) / 250 < 0.25
    assert frame.node("node2").gpu_util == 64
    assert frame.interval == 0.5
    assert notes and notes[-1].startswith("deep check: one-token completion in")
    assert "deep_check" in app.action_log
    assert main(s.cli("stop", "--yes")) == 0
