"""The action flows without hosts: the gates, the confirmation's states, the progress run,
tmux attach and the palette. The same flows on the real engine: test_dashboard_actions.py."""

from __future__ import annotations

import asyncio
import contextlib

from polling import eventually_async, pausing
from textual.command import CommandList

from sparktui.config.loader import load_config
from sparktui.engine.api import ActionResult, Progress
from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.remote.attach import tmux_attach_argv
from sparktui.engine.status import ClusterHealth, NodeHealth, Workload
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.viewmodel.runs import progress_rows
from tui.support import EXAMPLE_CONFIG, NOW, RecordingEngine, click, make_app, palette_search

ACTION_SCREENS = (ConfirmScreen, ServePlanScreen, ExecScreen, ProgressScreen)


def test_progress_rows_fold_each_step_and_node():
    events = [Progress("preflight", "a", "started"), Progress("preflight", "b", "started"),
              Progress("preflight", "a", "ok", "sha256:1"),
              Progress("before_serve", "a", "started", "command one"),
              Progress("before_serve", "a", "ok"),
              Progress("before_serve", "a", "started", "command two"),
              Progress("before_serve", "a", "warn", "two exited 1"),
              Progress("ready", "a", "waiting", "/v1/models"), Progress("ready", "a", "waiting",
                                                                        "4 s"),
              Progress("preflight", "b", "failed", "image missing")]
    rows = [(r.step, r.node, r.state, str(r.detail)) for r in progress_rows(events)]
    assert rows == [("preflight", "a", "ok", "sha256:1"),
                    ("preflight", "b", "failed", "image missing"),
                    ("before_serve", "a", "ok", "command one"),
                    ("before_serve", "a", "warn", "two exited 1"),
                    ("ready", "a", "waiting", "4 s")]


async def test_watch_mode_reaches_no_action_screen():
    engine = RecordingEngine()
    app = make_app(watch=True, engine=engine)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for pane in ("1", "3", "5"):
            for key in ("s", "x", "e", "t", "o", "p"):
                await pilot.press(pane, key)
                await pilot.pause()
                assert not isinstance(app.screen, ACTION_SCREENS)
        assert app.check_action("progress", ()) is False
        assert app.flows.run is None and engine.mutating_calls == []


class StoppedEngine(RecordingEngine):
    """Nothing serves: spark1 has an exited container of 2nodes."""

    async def health(self, cluster: str) -> ClusterHealth:
        self.calls.append(("health", cluster))
        exited = Workload("sparktui-x", "x", cluster, "spark1", 0, "head", "docker", "exited")
        return ClusterHealth(cluster, [NodeHealth("spark1", True, workloads=[exited]),
                                       NodeHealth("spark2", True)], NOW)

    async def stop(self, cluster, progress, *, recipe=None, hooks_for=None):
        self.calls.append(("stop", cluster, callable(hooks_for)))
        progress(Progress("stop", "spark1", "started", "sparktui-x"))
        progress(Progress("stop", "spark1", "ok", "sparktui-x"))
        return ActionResult(True)


async def test_stop_of_an_idle_cluster_confirms_without_typing_then_shows_progress():
    engine = StoppedEngine()
    app = make_app(engine=engine, refresh_seconds=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        await eventually_async(lambda: screen.health is not None, look=pausing(pilot))
        assert not screen.typed_required and not screen.confirm_button.disabled
        assert app.focused is screen.query_one("#confirm-cancel")
        await click(pilot, "#confirm-ok")
        await eventually_async(lambda: app.flows.run is not None
                               and app.flows.run.result is not None, look=pausing(pilot))
        assert isinstance(app.screen, ProgressScreen)
        assert ("stop", "2nodes", True) in engine.calls  # with the after_stop lookup
        assert [(r.step, r.state) for r in app.flows.run.rows()] == [("stop", "ok")]
        await pilot.press("escape")
        assert app.check_action("progress", ()) is True
        await pilot.press("o")
        assert isinstance(app.screen, ProgressScreen)


async def test_serving_cluster_needs_its_name_and_cancel_stops_nothing():
    engine = RecordingEngine()  # its health: 2nodes serving
    app = make_app(engine=engine, refresh_seconds=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        screen = app.screen
        await eventually_async(lambda: screen.health is not None, look=pausing(pilot))
        assert screen.typed_required and screen.confirm_button.disabled
        name = screen.query_one("#confirm-name").focus()
        await eventually_async(lambda: app.focused is name,
                               look=pausing(pilot))  # focus lands after this step
        await pilot.press(*"2nodes-b")
        assert screen.confirm_button.disabled
        await pilot.press("backspace", "backspace")
        assert not screen.confirm_button.disabled
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.dashboard
        assert engine.mutating_calls == []


async def test_a_failed_health_check_leaves_nothing_to_confirm_until_it_succeeds():
    attempts: list[int] = []

    async def check() -> ClusterHealth:
        attempts.append(1)
        if len(attempts) == 1:
            raise TimeoutError("health check timed out after 20 s")
        return ClusterHealth("2nodes", [NodeHealth("spark1", True), NodeHealth("spark2", True)],
                             NOW)

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ConfirmScreen(ConfirmRequest("Stop cluster 2nodes", "Stop", "2nodes", "", check))
        app.push_screen(screen)
        await eventually_async(lambda: screen.error is not None, look=pausing(pilot))
        assert screen.confirm_button.disabled
        await pilot.press("r")
        await eventually_async(lambda: screen.health is not None, look=pausing(pilot))
        assert not screen.confirm_button.disabled and len(attempts) == 2


class SlowServe(RecordingEngine):
    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def serve(self, plan, progress, *, keep_on_failure=False, force=False, replan=None):
        self.calls.append(("serve", plan.recipe))
        progress(Progress("ready", plan.head.name, "waiting", "/v1/models"))
        await self.release.wait()
        progress(Progress("ready", plan.head.name, "ok", "3 s"))
        return ActionResult(True)


async def test_serve_goes_on_behind_a_closed_view_and_quit_asks_twice():
    engine = SlowServe()
    app = make_app(engine=engine, refresh_seconds=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, ServePlanScreen)
        assert app.screen.plan_text.startswith("Plan: recipe glm-4.5-air-mtp on cluster 2nodes")
        await click(pilot, "#serve-ok")
        await eventually_async(lambda: bool(app.flows.run and app.flows.run.events),
                               look=pausing(pilot))
        await pilot.press("escape")
        await pilot.press("q")  # a serve is running: warn, do not quit
        await pilot.pause()
        assert app.is_running and app.flows.busy
        await pilot.press("s")  # a second serve is refused; the view comes back instead
        assert isinstance(app.screen, ProgressScreen)
        await pilot.press("escape")
        engine.release.set()
        await eventually_async(lambda: not app.flows.busy, look=pausing(pilot))
        assert any("serving glm-4.5-air-mtp on 2nodes" in n.message
                   for n in app._notifications)
        assert [c for c in engine.calls if c[0] == "serve"] == [("serve", "glm-4.5-air-mtp")]


def tmux_health() -> ClusterHealth:
    session = Workload("sparktui-qwen3-30b-tmux", "qwen3-30b-tmux", "2nodes", "spark1", 0,
                       "head", "tmux", "running")
    return ClusterHealth("2nodes", [NodeHealth("spark1", True, workloads=[session]),
                                    NodeHealth("spark2", True)], NOW)


class Attaching(RecordingEngine):
    """Makes the argv as the real engine does (``attach_argv`` connects nowhere)."""

    def attach_argv(self, cluster: str, workload: Workload) -> list[str]:
        return ClusterEngine(load_config(EXAMPLE_CONFIG).config).attach_argv(cluster, workload)


async def test_tmux_attaches_to_the_session_on_the_selected_node_and_comes_back():
    app = make_app(engine=Attaching(), refresh_seconds=60)
    ran: list[list[str]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: "2nodes" in app.dashboard.health, look=pausing(pilot))
        app.dashboard.post_message(HealthUpdated(tmux_health()))
        await pilot.pause()
        app.suspend = contextlib.nullcontext  # the test driver cannot suspend
        app.flows.run_attached = lambda argv: ran.append(argv) or 0
        await pilot.press("3", "t")  # spark1 (rank 0) under the cursor
        config = load_config(EXAMPLE_CONFIG).config
        spark1 = config.cluster("2nodes").ranked[0]
        assert ran == [tmux_attach_argv(config, spark1, "sparktui-qwen3-30b-tmux")]
        assert ran[0][:2] == ["ssh", "-t"] and ran[0][-1].startswith("tmux attach-session")
        await pilot.press("down", "t")  # spark2 has no session
        await pilot.pause()
        assert len(ran) == 1
        assert "no sparktui tmux session on spark2" in [n.message for n in app._notifications]


async def test_tmux_on_a_node_that_did_not_answer_says_unknown_not_no_session():
    """spark2's SSH did not answer: its tmux sessions are unknown, never "none"; a node
    whose docker did not answer still attaches to a session its tmux listed."""
    app = make_app(engine=Attaching(), refresh_seconds=60)
    ran: list[list[str]] = []
    session = tmux_health().nodes[0].workloads[0]
    silent = ClusterHealth("2nodes", [
        NodeHealth("spark1", True, workloads=[session], docker_error="docker: no socket"),
        NodeHealth("spark2", False, error="timeout (5 s)")], NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: "2nodes" in app.dashboard.health, look=pausing(pilot))
        app.dashboard.post_message(HealthUpdated(silent))
        await pilot.pause()
        app.suspend = contextlib.nullcontext  # the test driver cannot suspend
        app.flows.run_attached = lambda argv: ran.append(argv) or 0
        await pilot.press("3", "down", "t")  # spark2 under the cursor
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert ran == [] and "unknown: spark2 does not answer" in messages, messages
        assert not any("no sparktui tmux session" in m for m in messages), messages
        await pilot.press("up", "t")  # spark1: docker silent, its tmux session listed
        await pilot.pause()
        assert len(ran) == 1 and ran[0][-1].startswith("tmux attach-session"), ran


async def _palette(pilot, query: str) -> list[str]:
    await palette_search(pilot, query)
    commands = pilot.app.screen.query_one(CommandList)
    titles = [str(commands.get_option_at_index(i).prompt).split("\n")[0]
              for i in range(commands.option_count)]
    await pilot.press("escape")
    await pilot.pause()
    return titles


async def test_palette_offers_tmux_and_progress_only_when_they_make_sense():
    app = make_app(engine=RecordingEngine(), refresh_seconds=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually_async(lambda: "2nodes" in app.dashboard.health,
                               look=pausing(pilot))  # docker only
        assert "Tmux attach" not in await _palette(pilot, "tmux")
        assert "Progress" not in await _palette(pilot, "progress")
        app.dashboard.post_message(HealthUpdated(tmux_health()))
        await pilot.pause()
        assert "Tmux attach" in await _palette(pilot, "tmux")
        await palette_search(pilot, "stop")
        await pilot.press("enter")  # the palette's Stop is the confirmation flow
        await eventually_async(lambda: isinstance(app.screen, ConfirmScreen), look=pausing(pilot))
