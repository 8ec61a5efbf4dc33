"""The dashboard's actions on the real engine and the sshd test hosts: stop behind a fresh
health check and a typed name, serve with its plan and progress, exec per node."""

from __future__ import annotations

import asyncio
import re
import time

from lookalike import Why
from polling import eventually_async
from site_support import toy_recipe
from textual.widgets import Input

from sparktui.cli import main
from sparktui.plan.render import render
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from tui.dashboard_support import dashboard_app
from tui.support import click

# A look-alike, not the real vLLM (tests/lookalike.py): an engine that dies while loading; a serve
# and a stop per test; 2-node groups.
LOOKALIKE = (Why.FAULT, Why.SPEED, Why.MULTI_NODE)

NODES = ("node1", "node2")


def _names(s, node: str, all_: bool = False) -> list[str]:
    flag = "-a " if all_ else ""
    return s.hosts.ssh(node, f"docker ps {flag}--format '{{{{.Names}}}}'").stdout.split()


def _removals(s, node: str) -> list[list[str]]:
    return [a for a in s.hosts.recorded_docker(node) if a[1:2] in (["stop"], ["rm"], ["kill"])]


def _docker_runs(s, node: str) -> list[list[str]]:
    return [a for a in s.hosts.recorded_docker(node) if a[:2] == ["docker", "run"]]


def _serving(app) -> bool:
    health = app.dashboard.health.get("test") if app.dashboard else None
    return health is not None and health.serving


def _gate_health(app):
    """Hold the confirmation's fresh check until the test opens the gate."""
    gate, real, asked = asyncio.Event(), app.fresh_health, []

    async def gated(cluster: str):
        asked.append(time.time())
        await gate.wait()
        return await real(cluster)

    app.fresh_health = gated
    return gate, asked


def test_stop_waits_for_a_fresh_health_and_cancel_leaves_everything_running(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)

    async def go() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            gate, asked = _gate_health(app)
            await pilot.press("x")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            assert app.focused is screen.query_one("#confirm-cancel")  # Cancel first
            await pilot.pause(0.3)
            assert asked and screen.health is None
            assert screen.confirm_button.disabled  # no fresh check yet: nothing to confirm
            gate.set()
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            assert screen.health.checked_at >= asked[0]  # the check made after x
            assert screen.health.serving and screen.typed_required
            assert screen.confirm_button.disabled
            await pilot.press("n")  # n cancels
            await pilot.pause()
            assert app.screen is app.dashboard
            await pilot.press("x")
            await eventually_async(lambda: isinstance(app.screen, ConfirmScreen),
                                   settle=pilot.pause)
            await pilot.press("escape")  # and so does escape
            await pilot.pause()
            assert app.screen is app.dashboard and app.flows.run is None

    asyncio.run(go())
    for node in NODES:
        assert _names(s, node) == ["sparktui-toy"]
        assert _removals(s, node) == []
    assert main(s.cli("stop", "--yes")) == 0


def test_stop_needs_the_typed_name_then_stops_everything_and_runs_after_stop(site, tmp_path):
    s = site(2)
    marks = tmp_path / "marks"
    marks.mkdir()
    s.recipe("toy", toy_recipe(extra=f'after_stop = ["echo gone > {marks}/$SPARKTUI_NODE_NAME"]'))
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            await pilot.press("x")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            await eventually_async(lambda: screen.health is not None, settle=pilot.pause)
            name = screen.query_one("#confirm-name", Input)
            assert name.display and screen.confirm_button.disabled
            await click(pilot, "#confirm-ok")  # a disabled button does nothing
            assert app.screen is screen
            name.focus()
            await eventually_async(lambda: app.focused is name, settle=pilot.pause)
            await pilot.press(*"tes")
            assert screen.confirm_button.disabled
            await pilot.press("t")
            assert not screen.confirm_button.disabled
            await pilot.press("enter")
            await eventually_async(lambda: isinstance(app.screen, ProgressScreen),
                                   settle=pilot.pause)
            await eventually_async(lambda: app.flows.run.result is not None, settle=pilot.pause)
            run = app.flows.run
            await eventually_async(lambda: not app.dashboard.health["test"].workloads,
                                   settle=pilot.pause)
            return run

    run = asyncio.run(go())
    assert run.result.ok, run.result
    rows = {(r.step, r.node, r.state) for r in run.rows()}
    assert {("stop", n, "ok") for n in NODES} <= rows
    assert {("after_stop", n, "ok") for n in NODES} <= rows
    for node in NODES:
        assert _names(s, node, all_=True) == []
        assert _removals(s, node)
        assert (marks / node).read_text().strip() == "gone"


def _press_serve(app, pilot, plan_text: str):
    async def go() -> None:
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, ServePlanScreen)
        assert screen.plan_text == plan_text
        assert app.focused is screen.query_one("#serve-cancel")
        await click(pilot, "#serve-ok")
        await eventually_async(lambda: isinstance(app.screen, ProgressScreen), settle=pilot.pause)
    return go()


def test_serve_runs_the_plans_argv_on_each_node_and_shows_every_step(site):
    s = site(2)
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "3"'))
    plan = s.plan("toy")
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            await _press_serve(app, pilot, render(plan, "text"))
            await eventually_async(lambda: any(e.step == "launch" for e in app.flows.run.events),
                                   settle=pilot.pause)
            assert app.flows.run.running
            await pilot.press("escape")  # close the view: the serve goes on
            await pilot.pause()
            assert app.screen is app.dashboard and app.flows.busy
            await pilot.press("r")  # the dashboard still answers
            assert app.action_log[-1] == "refresh"
            await pilot.press("o")  # and the view comes back with every step so far
            assert isinstance(app.screen, ProgressScreen)
            await eventually_async(lambda: app.flows.run.result is not None, settle=pilot.pause)
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            return app.flows.run

    run = asyncio.run(go())
    assert run.result.ok, run.result
    for node in plan.nodes:
        (argv,) = _docker_runs(s, node.name)
        # the plan's argv, stamped with the run id this serve gave it (run_id.py)
        assert argv[2] == "--label" and re.fullmatch(r"sparktui\.run=[0-9a-f]{16}", argv[3])
        assert argv[:2] + argv[4:] == node.launch
    rows = run.rows()
    assert [(r.step, r.node, r.state) for r in rows if r.step == "launch"] == [
        ("launch", name, "ok") for name in plan.start_order]
    states = {(r.step, r.node, r.state) for r in rows}
    assert {("preflight", n, "ok") for n in NODES} <= states
    assert ("ready", plan.head.name, "ok") in states
    waits = [str(e.detail) for e in run.events if e.step == "ready" and e.state == "waiting"]
    assert any(d.endswith(" s") for d in waits)  # the wait counts its seconds
    assert run.outcome().startswith("serving toy on test: http://")
    assert main(s.cli("stop", "--yes")) == 0


def test_serve_that_dies_while_loading_shows_node_and_step_and_leaves_nothing(site):
    s = site(2)
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "30"\nSTANDIN_EXIT_AFTER = "1"'))
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await _press_serve(app, pilot, render(s.plan("toy"), "text"))
            await eventually_async(lambda: app.flows.run.result is not None, settle=pilot.pause)
            await pilot.pause(0.2)
            shown = app.screen.query_one("#progress-failure-text").render()
            return app.flows.run, str(shown), app.screen.query_one("#progress-failure").display

    run, shown, displayed = asyncio.run(go())
    result = run.result
    assert not result.ok and result.failed_step == "ready"
    assert result.failed_node in NODES
    assert displayed and f"node  {result.failed_node}" in shown and "step  ready" in shown
    assert "exited" in shown and "ERROR" in shown  # the container's last log lines
    assert run.outcome() == f"serve failed on {result.failed_node} at ready"
    for node in NODES:
        assert _names(s, node, all_=True) == []


def test_serve_on_a_cluster_already_serving_it_shows_preflight_refusing(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _serving(app), settle=pilot.pause)
            await pilot.press("s")
            assert "preflight will refuse" in str(app.screen.query_one("#serve-note").render())
            await click(pilot, "#serve-ok")
            await eventually_async(lambda: app.flows.run is not None
                              and app.flows.run.result is not None, settle=pilot.pause)
            await pilot.pause(0.2)
            return app.flows.run, str(app.screen.query_one("#progress-failure-text").render())

    run, shown = asyncio.run(go())
    assert run.result.failed_step == "preflight"
    assert "already exists on the node; stop it first" in shown
    for node in NODES:
        assert len(_docker_runs(s, node)) == 1  # only the first serve's
        assert _names(s, node) == ["sparktui-toy"]  # and it still runs
    assert main(s.cli("stop", "--yes")) == 0


def test_exec_shows_each_nodes_output_and_exit_code(site):
    s = site(2, extra_toml='[exec_aliases]\nwho = "echo I am $SPARKTUI_NODE_NAME"\n')
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("e")
            screen = app.screen
            assert isinstance(screen, ExecScreen)
            await pilot.press("enter")  # the alias under the cursor: who
            await eventually_async(lambda: "== node2" in screen.output, settle=pilot.pause)
            by_alias = screen.output
            command = screen.query_one("#exec-command", Input).focus()
            await eventually_async(lambda: app.focused is command, settle=pilot.pause)
            await pilot.press(*"test $SPARKTUI_NODE_NAME = node1 && echo first", "enter")
            await eventually_async(lambda: "$ test" in screen.output
                                   and "== node2" in screen.output, settle=pilot.pause)
            return by_alias, screen.output

    by_alias, typed = asyncio.run(go())
    assert "== node1 (exit 0)\nI am node1" in by_alias
    assert "== node2 (exit 0)\nI am node2" in by_alias
    assert "== node1 (exit 0)\nfirst" in typed
    assert "== node2 (exit 1)" in typed
