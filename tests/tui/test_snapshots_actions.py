"""Snapshots of the action screens: confirmation, serve plan, progress, exec.

Built from constructed values (no hosts, fixed clock), each screen over an empty host app
with the dashboard's stylesheet, so changes to the dashboard's panes do not move them.
Update only these with:
python -m pytest tests/tui/test_snapshots_actions.py --snapshot-update
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.api import ActionResult, ExecResult, Progress
from sparktui.engine.status import ClusterHealth, NodeHealth, Workload
from sparktui.plan.build import build_plan
from sparktui.plan.render import render
from sparktui.tui import app as app_module
from sparktui.tui.actions import Action
from sparktui.tui.screens.confirm import ConfirmRequest, ConfirmScreen
from sparktui.tui.screens.exec import ExecScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.screens.serve_plan import ServePlanScreen
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import EXAMPLE_CONFIG, NOW, RECIPES, fixed_clock, serving_health

SMALL = (120, 40)
LARGE = (200, 60)


class Host(App[None]):
    """Shows one screen the way the dashboard app would: same stylesheet, no panes."""

    CSS_PATH = Path(app_module.__file__).with_name("app.tcss")

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.animation_level = "none"
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.2)


async def _never() -> ClusterHealth:
    await asyncio.Event().wait()
    raise AssertionError("not reached")


def stopped_health() -> ClusterHealth:
    """2nodes: spark1 holds an exited head, spark2 a container of another cluster."""
    exited = Workload(name="sparktui-qwen3-235b-2node", recipe="qwen3-235b-2node",
                      cluster="2nodes", node="spark1", rank=0, role="head", runtime="docker",
                      state="exited", status="Exited (1) 3 minutes ago", exit_code=1)
    other = Workload(name="sparktui-gpt-oss-120b-sglang", recipe="gpt-oss-120b-sglang",
                     cluster="4nodes-switch", node="spark2", rank=1, role="head",
                     runtime="docker", state="running", status="Up 1 hour", port=30000)
    return ClusterHealth("2nodes", [NodeHealth("spark1", True, latency_ms=1.1,
                                               workloads=[exited]),
                                    NodeHealth("spark2", True, latency_ms=1.3,
                                               workloads=[other])], NOW - 1)


def _stop_request(check) -> ConfirmRequest:
    return ConfirmRequest(
        title="Stop cluster 2nodes", verb="Stop", cluster="2nodes",
        what="Removes every sparktui container and tmux session of 2nodes on its nodes "
             "(heads first), then runs the recipes' after_stop hooks.", check=check)


def _confirm(check) -> Host:
    return Host(ConfirmScreen(_stop_request(check)))


async def _health(health: ClusterHealth) -> ClusterHealth:
    return health


def test_confirm_checking(snap_compare):
    """The fresh check is out: the Stop button is disabled, Cancel has the focus."""
    assert snap_compare(_confirm(_never), terminal_size=SMALL, run_before=_settle)


def test_confirm_idle(snap_compare):
    """Not serving: Stop is enabled once the check is back; the other cluster's container
    is listed as staying."""
    check = lambda: _health(stopped_health())  # noqa: E731
    assert snap_compare(_confirm(check), terminal_size=SMALL, run_before=_settle)


def test_confirm_serving(snap_compare):
    """Serving: the cluster's name must be typed before Stop enables."""
    check = lambda: _health(serving_health())  # noqa: E731
    assert snap_compare(_confirm(check), terminal_size=SMALL, run_before=_settle)


def test_confirm_serving_200x60(snap_compare):
    check = lambda: _health(serving_health())  # noqa: E731
    assert snap_compare(_confirm(check), terminal_size=LARGE, run_before=_settle)


def test_serve_plan_preview(snap_compare):
    loaded = load_config(EXAMPLE_CONFIG)
    plan = build_plan(loaded, load_recipe(RECIPES / "qwen3-235b-2node" / "recipe.toml"),
                      "2nodes")
    screen = ServePlanScreen(plan.recipe, plan.cluster, render(plan, "text"))
    assert snap_compare(Host(screen), terminal_size=SMALL, run_before=_settle)


SERVE_STEPS = [
    Progress("preflight", "spark1", "started"), Progress("preflight", "spark2", "started"),
    Progress("preflight", "spark1", "ok", "sha256:" + "3f" * 32),
    Progress("preflight", "spark2", "ok", "sha256:" + "3f" * 32),
    Progress("before_serve", "spark1", "started", "command sudo nvidia-smi -pm 1"),
    Progress("before_serve", "spark2", "started", "command sudo nvidia-smi -pm 1"),
    Progress("before_serve", "spark1", "ok", "sudo nvidia-smi -pm 1"),
    Progress("before_serve", "spark2", "ok", "sudo nvidia-smi -pm 1"),
    Progress("before_serve", "spark1", "started", "script stop_dgx_services"),
    Progress("before_serve", "spark1", "warn",
             "stop_dgx_services exited 1: Failed to stop nvidia-dgx-telemetry.service"),
    Progress("launch", "spark2", "started", "worker"),
    Progress("launch", "spark2", "ok", "4f1d2c3b9a8e"),
    Progress("launch", "spark1", "started", "head"),
    Progress("launch", "spark1", "ok", "9e8d7c6b5a4f"),
    Progress("ready", "spark1", "waiting", "/v1/models on port 30000"),
    Progress("ready", "spark1", "waiting", "12 s"),
]

LAST_LINES = "\n".join([
    "sparktui-qwen3-235b-2node is exited 1",
    "INFO 06-15 15:06:01 [loader.py:101] loading safetensors shard 1/4",
    "INFO 06-15 15:06:02 [loader.py:102] loading safetensors shard 2/4",
    "ERROR 06-15 15:06:03 [worker.py:88] CUDA out of memory. Tried to allocate 2.00 GiB",
    "ERROR 06-15 15:06:03 [engine.py:12] engine core failed to start",
])


def _run(failed: bool) -> ActionRun:
    run = ActionRun(1, Action.SERVE, "2nodes", "qwen3-235b-2node", NOW - 14,
                    url="http://10.0.0.11:30000/v1", events=list(SERVE_STEPS))
    if failed:
        run.events += [
            Progress("ready", "spark1", "failed", LAST_LINES),
            Progress("rollback", "spark1", "started", "sparktui-qwen3-235b-2node"),
            Progress("rollback", "spark1", "ok", "sparktui-qwen3-235b-2node"),
            Progress("rollback", "spark2", "started", "sparktui-qwen3-235b-2node"),
            Progress("rollback", "spark2", "ok", "sparktui-qwen3-235b-2node"),
        ]
        run.result = ActionResult(False, "spark1", "ready", LAST_LINES, run.events)
        run.finished_at = NOW - 2
    return run


def _progress(run: ActionRun) -> Host:
    return Host(ProgressScreen(run, fixed_clock))


def test_progress_mid_serve(snap_compare):
    assert snap_compare(_progress(_run(False)), terminal_size=SMALL, run_before=_settle)


def test_progress_failed_serve(snap_compare):
    assert snap_compare(_progress(_run(True)), terminal_size=SMALL, run_before=_settle)


GPU_CSV = ("name, utilization.gpu [%], memory.used [MiB], temperature.gpu\n"
           "NVIDIA GB10, 97 %, 112345 MiB, 61\n")


async def _exec_results(command: str) -> list[ExecResult]:
    return [ExecResult("spark1", 0, GPU_CSV, ""),
            ExecResult("spark2", None, "", "", "timeout: no SSH answer in 10 s")]


def test_exec_output(snap_compare):
    loaded = load_config(EXAMPLE_CONFIG)

    screen = ExecScreen("2nodes", ["spark1", "spark2"], loaded.config.exec_aliases,
                        _exec_results)

    async def run_before(pilot: Pilot) -> None:
        await pilot.pause()
        await pilot.press("enter")  # the first alias: gpu
        await _settle(pilot)

    assert snap_compare(Host(screen), terminal_size=SMALL, run_before=run_before)
