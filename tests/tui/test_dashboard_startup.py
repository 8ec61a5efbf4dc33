"""The dashboard as ``sparktui`` starts it: a skeleton first, then the validated config and
the real engine on the real test hosts; a broken config still ends on its error screen."""

from __future__ import annotations

import asyncio

from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe
from textual.widgets import Static

from sparktui.cli import main
from sparktui.engine.api import ReadOnlyView
from sparktui.engine.cluster import ClusterEngine
from sparktui.tui.app import create_app
from sparktui.tui.options import TuiOptions
from sparktui.tui.screens.error import ConfigErrorScreen
from sparktui.tui.startup import pending_config
from tui.dashboard_support import table_text

# A look-alike, not the real vLLM (tests/lookalike.py): a serve per test under the dashboard; 2-node
# group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

OPTIONS = TuiOptions(cursor_blink=False, animations=False, refresh_seconds=0.5,
                     health_timeout=10)


def _start(path, recipes, watch: bool = False, painted: list[str] | None = None):
    """What ``run_app`` builds for ``sparktui --config path``; ``painted`` collects the
    screens of the frames Textual paints, in order."""
    pending = pending_config(path)
    app = create_app(pending, recipes, None, watch, options=OPTIONS, reload_config=pending.load)
    if painted is not None:
        display = app._display

        def spy(screen, renderable):
            name = type(screen).__name__
            if renderable is not None and (not painted or painted[-1] != name):
                painted.append(name)
            display(screen, renderable)

        app._display = spy
    return app


def test_startup_paints_the_skeleton_then_the_dashboard_on_the_real_engine(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    painted: list[str] = []
    app = _start(s.config_path, s.recipes, painted=painted)

    async def run() -> str:
        async with app.run_test(size=(160, 48)) as pilot:
            await eventually_async(lambda: app.dashboard is not None and app.dashboard.is_mounted,
                                   settle=pilot.pause)
            assert isinstance(app.engine, ClusterEngine)
            await eventually_async(lambda: table_text(app).count("running") == 2,
                                   settle=pilot.pause)
            return table_text(app)

    text = asyncio.run(run())
    assert [n for n in painted if n != "Screen"][:2] == ["StartupScreen", "DashboardScreen"]
    assert "node1" in text and "node2" in text
    assert main(s.cli("stop", "--yes")) == 0


def test_startup_in_watch_mode_holds_a_read_only_view(site):
    s = site(2)
    app = _start(s.config_path, s.recipes, watch=True)

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: app.dashboard is not None and app.dashboard.is_mounted,
                                   settle=pilot.pause)
            assert isinstance(app.engine, ReadOnlyView)
            assert not hasattr(app.engine, "serve") and not hasattr(app.engine, "stop")
            await eventually_async(lambda: "node1" in table_text(app), settle=pilot.pause)

    asyncio.run(run())


def test_startup_with_a_broken_config_ends_on_the_error_screen(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[[clusters]]\nname = "c"\nnodes = [\n'
                      '  { name = "n1", ssh_ip = "127.0.0.1", rank = "zero" },\n]\n')
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    painted: list[str] = []
    app = _start(config, recipes, painted=painted)
    assert app.config.clusters == (("c", ("n1",)),)  # the peek reads names, not types

    async def run() -> str:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: isinstance(app.screen, ConfigErrorScreen),
                                   settle=pilot.pause)
            assert app.engine is None

            def shown() -> str:
                return "\n".join(str(w.render()) for w in app.screen.query(Static))
            await eventually_async(lambda: "config.toml" in shown(),
                                   settle=pilot.pause)  # its text is composed
            return shown()

    text = asyncio.run(run())
    assert "config.toml:4" in text and "rank" in text
    assert [n for n in painted if n != "Screen"] == ["StartupScreen", "ConfigErrorScreen"]
