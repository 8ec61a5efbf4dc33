"""Supervision from the dashboard on the real test bed (issue 14, item 5): S starts the
on-node supervisor behind the health-first confirmation, the header and the clusters
pane say "supervised", a restart raises an alert, X ends it and leaves the group running;
--watch can do neither."""

from __future__ import annotations

import asyncio

from engine.supervise.supervise_support import (
    LOOK_OVER_SSH,
    SUPERVISOR_IMAGE,
    TOP,
    all_new,
    build_supervisor_image,
    running,
    sparks,
    supervision,
    wait_supervised,
)
from lookalike import Why
from polling import eventually, eventually_async
from site_support import toy_recipe
from textual.widgets import Static

from sparktui.cli import main
from sparktui.config.loader import load_config
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.widgets.alerts import AlertsStrip
from sparktui.tui.widgets.header import StatusHeader
from tui.dashboard_support import dashboard_app
from tui.support import click

# A look-alike, not the real vLLM (tests/lookalike.py): a killed group restarted by the supervisor:
# several starts per test; 2-node group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

CONTAINER = "sparktui-supervise-test"


def _on_node_site(site):
    """Two nodes, small supervision limits, the supervisor's image built on the head and
    the head's own key to every node (the test hosts' user key, on the head's disk)."""
    s = sparks(site(2, top=TOP))
    s.config_path.write_text(f'supervise_image = "{SUPERVISOR_IMAGE}"\n'
                             f'supervise_key_path = "{s.hosts.key_path}"\n'
                             + s.config_path.read_text())
    s.loaded = load_config(s.config_path)
    build_supervisor_image(s.hosts.node("node1"))
    s.recipe("toy", toy_recipe())
    return s


def _supervisors(s) -> list[str]:
    """The states of the head's supervisor containers."""
    return s.hosts.node("node1").docker(
        "ps", "-a", "--filter", f"name={CONTAINER}", "--format", "{{.State}}").stdout.split()


def _header(app) -> str:
    return str(app.dashboard.query_one(StatusHeader).query_one("#header-right", Static).render())


def _cluster_line(app) -> str:
    return app.dashboard.clusters_pane.cluster_tree.root.children[0].label.plain


def _state(app) -> str | None:
    health = app.dashboard.health.get("test")
    return health.supervision.state if health is not None and health.supervision else None


def _healthy(app) -> bool:
    """The supervisor saw its group healthy (a failure from now on is restarted)."""
    status = app.dashboard.health["test"].supervision
    return (status is not None and status.state == "supervised" and status.record is not None
            and status.record.healthy_since is not None)


async def _confirm(app, pilot, verb: str) -> tuple[ConfirmScreen, str]:
    """The confirmation, its fresh health check back, then its button: the screen and
    the verdict it showed."""
    screen = app.screen
    assert isinstance(screen, ConfirmScreen), screen
    assert screen.request.verb == verb
    await eventually_async(lambda: app.focused is screen.query_one("#confirm-cancel"),
                           settle=pilot.pause)
    await eventually_async(lambda: screen.health is not None, 60, settle=pilot.pause)
    await eventually_async(lambda: not screen.confirm_button.disabled, settle=pilot.pause)
    verdict = str(screen.query_one("#confirm-verdict", Static).render())
    await click(pilot, "#confirm-ok")  # once the dialog is laid out
    await eventually_async(lambda: isinstance(app.screen, ProgressScreen), settle=pilot.pause)
    await eventually_async(lambda: app.flows.run.result is not None, 120, settle=pilot.pause)
    return screen, verdict


def test_s_starts_the_on_node_supervisor_and_a_restart_raises_an_alert(site):
    s = _on_node_site(site)
    app = dashboard_app(s)
    notes: list[str] = []

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            real = app.notify
            app.notify = lambda message, **kw: (notes.append(message), real(message, **kw))
            await eventually_async(lambda: _state(app) == "none", 60, settle=pilot.pause)
            assert "supervised" not in _header(app)
            await pilot.press("S")
            screen, verdict = await _confirm(app, pilot, "Supervise")
            assert "Nothing of test runs on its nodes." in verdict
            assert not screen.typed_required  # nothing served yet: no name to type
            run = app.flows.run
            assert run.action == "supervise" and run.result.ok, run.result
            assert run.outcome() == f"toy on test is supervised from its head ({CONTAINER})"
            await pilot.press("escape")
            # the supervisor serves the group itself; the dashboard reads it from the head
            await eventually_async(lambda: _state(app) == "supervised" and app.dashboard
                                   .health["test"].serving, 180, settle=pilot.pause)
            assert "⟳ supervised" in _header(app)
            assert "⟳ supervised" in _cluster_line(app)
            await eventually_async(lambda: _healthy(app) and running(s), 120, settle=pilot.pause)
            before = running(s)
            s.hosts.node("node2").docker("kill", "sparktui-toy")
            strip = app.dashboard.query_one(AlertsStrip)
            await eventually_async(lambda: "supervisor: " in str(strip.render()), 180,
                                   settle=pilot.pause)
            await eventually_async(lambda: any("supervisor: " in n for n in notes),
                                   settle=pilot.pause)
            return before, str(strip.render())

    before, strip = asyncio.run(go())
    assert _supervisors(s) == ["running"]
    assert "node2" in strip and "its container" in strip, strip
    assert all_new(s, before) or eventually(lambda: all_new(s, before), 120, "the group new",
                                            every=LOOK_OVER_SSH)
    assert main(s.cli("stop", "--yes")) == 0
    assert _supervisors(s) == []


def test_x_ends_the_supervision_and_leaves_the_group_running(site):
    s = _on_node_site(site)
    assert main(s.cli("supervise", "toy", "--on-node", "--interval", "1")) == 0
    wait_supervised(s)
    before = running(s)
    app = dashboard_app(s)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: _state(app) == "supervised", 60, settle=pilot.pause)
            assert "⟳ supervised" in _header(app)
            await pilot.press("X")
            screen, verdict = await _confirm(app, pilot, "End supervision")
            # the group serves, but nothing is stopped: no name to type, nothing marked
            assert screen.health.serving and not screen.typed_required
            assert verdict == "Nothing is stopped: the group of test stays as it is."
            run = app.flows.run
            assert run.action == "end_supervision" and run.result.ok, run.result
            await pilot.press("escape")
            await eventually_async(lambda: _state(app) not in ("supervised", None), 60,
                                   settle=pilot.pause)
            assert "supervised" not in _header(app)
            assert "supervised" not in _cluster_line(app)

    asyncio.run(go())
    assert _supervisors(s) == []  # the container and its files are gone
    status = supervision(s)
    assert status.state == "disarmed" and status.lease is None
    assert running(s) == before  # the very same containers: nothing was restarted
    assert main(s.cli("stop", "--yes")) == 0


async def test_watch_has_no_supervision_key_and_the_normal_dashboard_has_both():
    from sparktui.tui.actions import CHANGES_CLUSTER
    from sparktui.tui.screens.help import help_rows
    from tui.support import RecordingEngine, make_app

    engine = RecordingEngine()
    app = make_app(watch=True, engine=engine)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for action in ("supervise", "end_supervision"):
            assert action in CHANGES_CLUSTER and app.check_action(action, ()) is False
        assert not hasattr(app.engine, "supervise_on_node")
        assert not hasattr(app.engine, "end_supervision")
        for pane in ("1", "3", "5"):
            await pilot.press(pane, "S", "X")
            await pilot.pause()
            assert app.screen is app.dashboard  # no confirmation opened
        assert not {"supervise", "end_supervision"} & set(app.action_log)
        assert not any(keys in ("S", "X") for _group, keys, _text in
                       help_rows(app, app.dashboard))
        assert {c[0] for c in engine.calls} <= {"health", "logs"}
    normal = make_app(engine=RecordingEngine())
    async with normal.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rows = {keys: text for _group, keys, text in help_rows(normal, normal.dashboard)}
        assert rows["S"] == "Supervise" and rows["X"] == "End supervision"
