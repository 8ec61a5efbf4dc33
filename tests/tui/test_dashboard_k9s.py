"""The dashboard's restart (R), shell (a) and inspect (i) on the real engine and the
sshd + dockerd test hosts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import subprocess

from container_support import ENV, no_secret, read_until
from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe
from textual.widgets import Input

from sparktui.cli import main
from sparktui.engine.remote.attach import docker_shell_argv
from sparktui.scrub import STARS
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.inspect import InspectScreen
from sparktui.tui.screens.progress import ProgressScreen
from tui.dashboard_support import dashboard_app

# A look-alike, not the real vLLM (tests/lookalike.py): restart, shell, inspect: a serve per test;
# 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

NODES = ("node1", "node2")


def _ids(s) -> dict[str, str]:
    return {n: s.hosts.node(n).containers()["sparktui-toy"]["Id"] for n in NODES}


def _serving(app) -> bool:
    health = app.dashboard.health.get("test") if app.dashboard else None
    return health is not None and health.serving


async def _type_the_name_and_run(pilot, app, screen: ConfirmScreen):
    """The serving cluster's name typed into its confirmation, then the run to its end."""
    await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
    name = screen.query_one("#confirm-name", Input)
    name.focus()
    await eventually_async(lambda: app.focused is name, settle=pilot.pause)
    await pilot.press(*"test", "enter")
    await eventually_async(lambda: isinstance(app.screen, ProgressScreen), settle=pilot.pause)
    await eventually_async(lambda: app.flows.run.result is not None, 120, settle=pilot.pause)
    return app.flows.run


def test_restart_cancelled_changes_nothing_and_confirmed_replaces_the_group(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    before = _ids(s)
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            assert app.dashboard.recipes.select("toy")
            await pilot.press("R")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.dashboard and app.flows.run is None
            assert _ids(s) == before
            await pilot.press("R")
            assert isinstance(app.screen, ConfirmScreen)
            return await _type_the_name_and_run(pilot, app, app.screen)

    run = asyncio.run(go())
    assert run.result.ok, run.result
    assert run.outcome().startswith("restarted toy on test")
    rows = {(r.step, r.node, r.state) for r in run.rows()}
    assert {("stop", n, "ok") for n in NODES} <= rows and ("ready", "node1", "ok") in rows
    after = _ids(s)
    assert all(after[n] != before[n] for n in NODES)
    assert main(s.cli("stop", "--yes")) == 0


def test_inspect_masks_the_token_and_shell_runs_in_the_container(site):
    s = site(2)
    s.recipe("toy", toy_recipe(env=ENV))
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)
    ran: list[list[str]] = []

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            await pilot.press("3", "down", "i")  # node2's row
            await eventually_async(lambda: isinstance(app.screen, InspectScreen),
                                   settle=pilot.pause)
            screen = app.screen
            shown = screen.body.plain
            await pilot.press("escape")
            app.suspend = contextlib.nullcontext  # the test driver cannot suspend
            app.flows.run_attached = lambda argv: ran.append(argv) or 0
            await pilot.press("a")
            return screen.described.node, shown

    node, shown = asyncio.run(go())
    assert node == "node2"
    no_secret(shown)
    assert f"HF_TOKEN={STARS}" in shown and "SHOWN_VALUE=plain-value-42" in shown
    config = s.loaded.config
    node2 = config.cluster("test").ranked[1]
    assert ran == [docker_shell_argv(config, node2, "sparktui-toy")]
    # the argv the key ran works: on a terminal, a shell in node2's container
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(ran[0], stdin=child_fd, stdout=child_fd, stderr=child_fd,
                            start_new_session=True)
    os.close(child_fd)
    try:
        os.write(main_fd, b"echo via-key-$SHOWN_VALUE; exit 0\n")
        read_until(main_fd, b"via-key-plain-value-42")
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main_fd)
    assert main(s.cli("stop", "--yes")) == 0


def test_ctrl_x_stops_only_the_selected_recipe_and_cancel_stops_nothing(site):
    s = site(2)
    for name, port, share in (("alpha", 30061, 0.3), ("beta", 30062, 0.4)):
        s.recipe(name, toy_recipe(port=port, nodes=1,
                                  extra=f'args = ["--gpu-memory-utilization", "{share}"]'))
        assert main(s.cli("serve", name)) == 0
    app = dashboard_app(s)

    def names() -> list[str]:
        return sorted(s.hosts.ssh("node1", "docker ps --format '{{.Names}}'").stdout.split())

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app) and len(
                      app.dashboard.health["test"].recipes) == 2, settle=pilot.pause)
            assert app.dashboard.recipes.select("beta")
            await pilot.press("ctrl+x")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            screen = app.screen
            assert "beta" in str(screen.request.title) and "alpha" not in screen.request.title
            await pilot.press("escape")
            await eventually_async(lambda: app.screen is app.dashboard, settle=pilot.pause)
            assert app.flows.run is None and names() == ["sparktui-alpha", "sparktui-beta"]
            await pilot.press("ctrl+x")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            screen = app.screen
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            affected = [w.recipe for w in screen.health.workloads
                        if screen.request.affects(w)]
            assert affected == ["beta"], affected  # what the ✖ marks
            return await _type_the_name_and_run(pilot, app, screen)

    run = asyncio.run(go())
    assert run.result.ok, run.result
    assert run.title() == "Stop beta on test" and run.outcome() == "stopped beta on test"
    assert names() == ["sparktui-alpha"]
    assert main(s.cli("stop", "--yes")) == 0
