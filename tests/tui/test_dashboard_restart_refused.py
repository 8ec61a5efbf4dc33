"""The dashboard's restart (R) refuses what the CLI's restart refuses, through the same
engine function (``restart_refusal``), before anything is stopped: a recipe whose model
name another recipe serves behind the router (its serve after the stop would be refused,
leaving it down), and a recipe of which nothing runs. On the real engine, the sshd +
dockerd test hosts and the real SMG router (tests/hosts/testimage/router.py)."""

from __future__ import annotations

import asyncio
import dataclasses

from hosts.testimage import router as router_image
from lookalike import Why
from polling import eventually_async
from site_support import _prepend_top_level, toy_recipe
from textual.widgets import Button, Input, Static

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.tui.screens.confirm import ConfirmScreen
from tui.dashboard_support import dashboard_app

# A look-alike, not the real vLLM (tests/lookalike.py): two recipes behind SMG on one node.
LOOKALIKE = Why.SPEED

ROUTER_PORT, ALPHA_PORT, BETA_PORT = 30493, 30494, 30495


def _recipe(port: int, served: str, share: float = 0.3) -> str:
    return toy_recipe(port=port, nodes=1, extra=(
        f'args = ["--served-model-name", "{served}", "--gpu-memory-utilization", "{share}"]'))


def _verdict(screen: ConfirmScreen) -> str:
    return str(screen.query_one("#confirm-verdict", Static).render())


async def _try_to_confirm(pilot, screen: ConfirmScreen) -> None:
    """What confirms an allowed restart of a serving recipe: the cluster's name typed and
    submitted (enter), the button clicked."""
    name = screen.query_one("#confirm-name", Input)
    name.value = "test"
    name.post_message(Input.Submitted(name, name.value))
    await pilot.pause()
    assert pilot.app.screen is screen, "the typed name confirmed the restart"
    await pilot.click("#confirm-ok")
    await pilot.pause()
    assert pilot.app.screen is screen, "the button confirmed the restart"


def test_restart_whose_name_is_taken_is_refused_in_its_confirmation_and_stops_nothing(
        site, tmp_path, monkeypatch):
    router_image.required()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    s = site(1, extra_toml=f"[clusters.router]\nport = {ROUTER_PORT}\n"
                           "ready_timeout_seconds = 600\n")
    node = s.hosts.node("node1")
    _prepend_top_level(s.config_path, f'home_dir = "{node.home}"\n')
    router_image.install(node)
    s.recipe("alpha", _recipe(ALPHA_PORT, "org/alpha"))
    s.recipe("beta", _recipe(BETA_PORT, "org/alpha"))
    s.recipe("idle", _recipe(BETA_PORT + 1, "org/idle", share=0.2))
    assert main(s.cli("serve", "alpha")) == 0
    assert main(s.cli("serve", "beta", "--share-model")) == 0
    before = {n: c["Id"] for n, c in node.containers().items()}
    app = dashboard_app(dataclasses.replace(s, loaded=load_config(s.config_path)))

    async def go() -> tuple[str, str]:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health
                                   and app.dashboard.health["test"].serving,
                                   settle=pilot.pause)
            shown = []
            for recipe in ("beta", "idle"):
                assert app.dashboard.recipes.select(recipe)
                await pilot.press("R")
                await eventually_async(lambda: isinstance(app.screen, ConfirmScreen)
                                       and app.screen.health is not None, settle=pilot.pause)
                screen = app.screen
                assert isinstance(screen, ConfirmScreen)
                await _try_to_confirm(pilot, screen)
                assert app.screen is screen and app.flows.run is None  # not confirmed
                assert screen.query_one("#confirm-ok", Button).disabled
                shown.append(_verdict(screen))
                await pilot.press("escape")  # cancel still works
                await eventually_async(lambda: app.screen is app.dashboard,
                                       settle=pilot.pause)
                assert app.flows.run is None
            return shown[0], shown[1]

    taken, idle = asyncio.run(go())
    assert "refusing to restart beta: org/alpha is already served by recipe alpha on " \
           "node1" in taken, taken
    assert "nothing of idle runs on test: nothing to restart" in idle, idle
    after = {n: c["Id"] for n, c in node.containers().items()}
    assert after == before  # nothing stopped, nothing replaced, nothing started
    assert node.containers()["sparktui-beta"]["State"]["Running"]
    assert main(s.cli("stop", "--yes")) == 0
