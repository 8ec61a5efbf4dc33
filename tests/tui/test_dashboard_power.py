"""Power from the dashboard, on the sshd test hosts and the fake Home Assistant: ``p`` on
the clusters pane, the choice, the confirmation behind a fresh health check, the progress
per node and per entity, and what was and was not done. The token never shows."""

from __future__ import annotations

import asyncio
import html
import re

from lookalike import Why
from polling import eventually_async
from power_support import TOKEN, fast_polls, ha, make_site
from site_support import toy_recipe
from textual.widgets import Input, OptionList

from sparktui.cli import main
from sparktui.tui.app import create_app
from sparktui.tui.options import TuiOptions
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.power_menu import PowerMenuScreen
from sparktui.tui.screens.progress import ProgressScreen
from tui.dashboard_support import dashboard_app
from tui.support import click, palette_search

# A look-alike, not the real vLLM (tests/lookalike.py): power cuts end the engine: a serve per test;
# 2-node group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

__all__ = ["fast_polls", "ha"]  # fixtures used by name


def _app(site, tmp_path):
    recipes = tmp_path / "recipes"
    recipes.mkdir(exist_ok=True)
    options = TuiOptions(cursor_blink=False, animations=False, refresh_seconds=1.0,
                         health_timeout=10)
    return create_app(site.loaded, recipes, site.engine(), False, options=options)


def _texts(app) -> str:
    """What the screen shows now (the SVG's text), and every notification."""
    svg = app.export_screenshot()
    shown = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    return shown + "\n".join(str(n.message) for n in app._notifications)


async def _choose(pilot, app, label: str) -> None:
    """``p`` on the clusters pane, then the menu line that starts with ``label``."""
    await pilot.press("1", "p")
    await eventually_async(lambda: isinstance(app.screen, PowerMenuScreen), settle=pilot.pause)
    menu = app.screen.query_one(OptionList)
    labels = [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]
    menu.highlighted = next(i for i, text in enumerate(labels) if text.startswith(label))
    menu.focus()  # focus is applied after this callback: the keys wait for it
    await eventually_async(lambda: app.focused is menu, settle=pilot.pause)
    await pilot.press("enter")
    await eventually_async(lambda: isinstance(app.screen, ConfirmScreen), settle=pilot.pause)


def test_power_off_from_the_clusters_pane_shuts_down_then_cuts_power(fresh_cluster, tmp_path,
                                                                     ha):
    site = make_site(fresh_cluster, tmp_path, ha)
    app = _app(site, tmp_path)
    seen: list[str] = []

    async def go():
        async with app.run_test(size=(140, 44)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            await _choose(pilot, app, "Power off test")
            screen = app.screen
            assert app.focused is screen.query_one("#confirm-cancel")
            assert screen.confirm_button.disabled or screen.health is not None
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            assert screen.health.all_reachable and not screen.typed_required
            seen.append(_texts(app))
            assert ha.service_calls() == []  # nothing happens before the confirmation
            await click(pilot, "#confirm-ok")
            await eventually_async(lambda: isinstance(app.screen, ProgressScreen),
                                   settle=pilot.pause)
            await eventually_async(lambda: app.flows.run.result is not None, 60, settle=pilot.pause)
            await pilot.pause(0.2)
            seen.append(_texts(app))
            return app.flows.run

    run = asyncio.run(go())
    assert run.result.ok, run.result
    assert not site.node("node1").running and not site.node("node2").running
    assert [n.recorded_power() for n in site.hosts.nodes] == [[["poweroff"]]] * 2
    assert sorted(e for s, e in ha.service_calls() if s == "turn_off") == [
        "switch.node1", "switch.node2", "switch.rack"]
    assert ha.hard_cuts == []
    rows = {(r.step, r.node, r.state) for r in run.rows()}  # per node and per entity
    assert {("halt", "node1", "ok"), ("halt", "node2", "ok"), ("power_off", "node1", "ok"),
            ("power_off", "switch.rack", "ok")} <= rows
    assert "Power off test: everything was done" in seen[1]
    assert not any(TOKEN in text for text in seen)


def test_cancel_powers_nothing(test_cluster, tmp_path, ha):
    site = make_site(test_cluster, tmp_path, ha)
    app = _app(site, tmp_path)

    async def go():
        async with app.run_test(size=(140, 44)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            await _choose(pilot, app, "Power off test")
            await eventually_async(lambda: app.screen.health is not None, settle=pilot.pause)
            await pilot.press("escape")
            await pilot.pause(0.5)
            assert app.screen is app.dashboard and app.flows.run is None

    asyncio.run(go())
    assert ha.service_calls() == []
    assert site.power_off_calls() == []
    assert site.node("node1").running and site.node("node2").running


def test_a_node_that_never_goes_down_is_reported_with_what_was_done(fresh_cluster, tmp_path,
                                                                    ha):
    site = make_site(fresh_cluster, tmp_path, ha, shutdown_timeout=1.5)
    site.node("node2").set_power(ignore=True)  # takes the command, keeps running
    app = _app(site, tmp_path)

    async def go():
        async with app.run_test(size=(140, 44)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            await palette_search(pilot, "power off")  # the palette reaches it too
            await pilot.press("enter")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            await eventually_async(lambda: app.screen.health is not None, settle=pilot.pause)
            await click(pilot, "#confirm-ok")
            await eventually_async(lambda: app.flows.run is not None
                                   and app.flows.run.result is not None, 60, settle=pilot.pause)
            await pilot.pause(0.2)
            return app.flows.run, _texts(app)

    run, text = asyncio.run(go())
    assert not run.result.ok
    assert {(o.action, o.target) for o in run.result.done} >= {("shutdown", "node1"),
                                                               ("power_off", "switch.node1")}
    assert {(o.action, o.target) for o in run.result.not_done} == {
        ("shutdown", "node2"), ("power_off", "switch.node2"), ("power_off", "switch.rack")}
    assert ha.states["switch.node2"] == "on" and site.node("node2").running
    assert "partly done" in text and "not done:" in text and "switch.node2 (node2)" in text


def test_a_serving_cluster_needs_its_typed_name_and_cancel_keeps_it(site, ha):
    s = site(2, extra_toml=ha.toml())
    s.config_path.write_text(f'power_off_command = ["{s.hosts.bin_dir / "poweroff"}"]\n'
                             + s.config_path.read_text())
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(140, 44)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health
                                   and app.dashboard.health["test"].serving, settle=pilot.pause)
            await _choose(pilot, app, "Power off test")
            screen = app.screen
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            assert screen.health.serving and screen.typed_required
            assert screen.confirm_button.disabled
            assert app.focused is screen.query_one("#confirm-cancel")
            name = screen.query_one("#confirm-name", Input).focus()
            await eventually_async(lambda: app.focused is name, settle=pilot.pause)
            await pilot.press(*"tes")
            assert screen.confirm_button.disabled
            await pilot.press("t")
            assert not screen.confirm_button.disabled
            await pilot.press("escape")  # and changes its mind
            await pilot.pause(0.3)
            assert app.flows.run is None

    asyncio.run(go())
    assert ha.calls == []
    assert s.hosts.node("node1").running and s.hosts.node("node1").containers()
    assert main(s.cli("stop", "--yes")) == 0


def test_without_home_assistant_the_dashboard_says_what_is_missing(test_cluster, tmp_path, ha):
    site = make_site(test_cluster, tmp_path, ha, ha_table="")
    app = _app(site, tmp_path)

    async def go() -> str:
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.press("1", "p")
            await pilot.pause(0.3)
            assert app.screen is app.dashboard  # no menu, no modal, no crash
            return "\n".join(n.message for n in app._notifications)

    text = asyncio.run(go())
    assert "[home_assistant]" in text and str(site.config_path) in text
    assert ha.calls == [] and site.power_off_calls() == []
