"""No config string breaks a screen: names with markup, brackets in messages, any text.

The load refuses such names (tests/config/test_config_hostile.py); these tests build the
config past the load (``model_validate``), so that the dashboard's own escaping is
what is tested: a node named ``node1[/]x`` used to crash the dashboard at start with
a ``MarkupError``, and a notification lost ``[home_assistant]``.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from textual.content import Content
from textual.widgets import Tree
from textual.widgets._toast import Toast

from sparktui.config.loaded import LoadedConfig
from sparktui.config.models import Config
from sparktui.config.source import SourceRef
from tui.support import RECIPES, RecordingEngine, make_app

MARKUP = "node1[/]x [b]bold[/b] [link=x]l[/link] [@click=app.quit]q[/] \\[ ["


def _loaded(cluster: str, node: str, alias: str = "gpu") -> LoadedConfig:
    config = Config.model_validate({
        "ssh_user": "ops",
        "clusters": [{"name": cluster, "nodes": [
            {"name": node, "ssh_ip": "10.0.0.1", "rank": 0},
            {"name": node + "2", "ssh_ip": "10.0.0.2", "rank": 1}]}],
        "nccl": {cluster: {}}, "exec_aliases": {alias: "echo [/]"}})
    return LoadedConfig(config, SourceRef(Path("/etc/sparktui/config[/].toml")))


def _plain_tree(app) -> list[str]:
    tree = app.dashboard.query_one(Tree)
    return [str(line.label) for branch in tree.root.children
            for line in (branch, *branch.children)]


async def test_names_with_markup_show_as_written() -> None:
    app = make_app(config=_loaded("c[/]1", MARKUP))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        assert app.dashboard is not None and app.screen is app.dashboard
        labels = _plain_tree(app)
        assert labels[0].startswith("c[/]1 · 2")
        assert labels[1].endswith(MARKUP) and labels[2].endswith(MARKUP + "2")
        title = Content.from_markup(str(app.dashboard.plan.border_title)).plain
        assert title.endswith(" on c[/]1")
        await pilot.press("ctrl+p")  # the palette lists the cluster by name
        await pilot.pause(0.3)
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert app.return_code is None and app._exception is None


async def test_a_notification_keeps_its_brackets() -> None:
    app = make_app(config=_loaded("duo", "n1"), engine=RecordingEngine())
    async with app.run_test(size=(140, 44), notifications=True) as pilot:
        await pilot.pause(0.3)
        await pilot.press("1", "p")  # power, and the config has no [home_assistant]
        await pilot.pause(0.3)
        shown = "\n".join(toast.render().plain for toast in app.screen.query(Toast))
    assert "has no [home_assistant] table" in shown
    assert "/etc/sparktui/config[/].toml" in shown


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)


@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cluster=names, node=names, alias=names)
def test_any_name_renders(cluster: str, node: str, alias: str) -> None:
    import asyncio

    async def run() -> None:
        app = make_app(config=_loaded(cluster, node, alias), recipes_dir=RECIPES)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            assert app.screen is app.dashboard
            assert len(_plain_tree(app)) == 3  # the cluster and its two nodes
            painted = _painted(app)
            await pilot.press("2", "e")  # the recipes pane, then the exec modal (aliases)
            await pilot.pause(0.05)
            painted += _painted(app)
        assert app._exception is None
        assert not CONTROL.search(painted), repr(painted)

    asyncio.run(run())


CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _painted(app) -> str:
    """The text of the screen as it goes to the terminal (control segments aside)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(),
                      force_terminal=True, color_system="truecolor", record=True)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)
