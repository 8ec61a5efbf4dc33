"""Snapshots of the benchmark runs view (``b``): two runs kept in a temp data folder
(built from a real aiperf 0.13 export, no live timing), plotted against concurrency;
and of starting one (``B``): its confirmation and its progress, from constructed values.

Update with: python -m pytest -n 0 tests/tui/test_snapshots_bench.py --snapshot-update
"""

from __future__ import annotations

import json

import pytest
from bench_support import a_run
from textual.pilot import Pilot

from sparktui.engine.api import ActionResult, Progress, Step, StepState
from sparktui.engine.bench.target import BenchTarget, starting
from sparktui.tui.actions import Action
from sparktui.tui.controllers.flows import bench_request
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import NOW, fixed_clock, make_app, serving_health
from tui.test_snapshots_actions import Host, _settle


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = tmp_path / "data" / "sparktui" / "bench"
    folder.mkdir(parents=True)
    for run in (a_run("64"), a_run("128", 1.4, "20261201-130000-toy")):
        (folder / f"{run.id}.json").write_text(json.dumps(run.model_dump()))
    return folder


async def _open(pilot: Pilot) -> None:
    await pilot.press("b")
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_bench_results(snap_compare, kept, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=_open)


def test_bench_results_in_watch_mode_and_empty(snap_compare, tmp_path, monkeypatch):
    """Read-only, so the wall screen has it too; nothing kept yet says how to make one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "empty"))
    assert snap_compare(make_app(watch=True), terminal_size=(80, 24), run_before=_open)


# -- starting one (B): the confirmation with its fresh check, and the run watched live --

def _bench_confirm(health) -> Host:
    async def check():
        return health
    return Host(ConfirmScreen(bench_request("qwen3-235b-2node", "2nodes", check)))


def _bench_run(done: bool) -> ActionRun:
    level = "level {}/3: concurrency {}, {}/{} requests"
    events = [Progress(Step.BENCH, "spark1", StepState.STARTED, level.format(1, 1, 0, 8)),
              Progress(Step.BENCH, "spark1", StepState.OK, level.format(1, 1, 8, 8)),
              Progress(Step.BENCH, "spark1", StepState.STARTED, level.format(2, 4, 0, 16)),
              Progress(Step.BENCH, "spark1", StepState.WAITING, level.format(2, 4, 9, 16))]
    run = ActionRun(1, Action.BENCH, "2nodes", "qwen3-235b-2node", NOW - 30, events=events)
    if done:
        run.events.append(Progress(Step.BENCH, "spark1", StepState.OK,
                                   level.format(2, 4, 16, 16)))
        run.result = ActionResult(True, detail="/home/op/.local/share/sparktui/bench/"
                                  "20261201-120000-qwen3-235b-2node.json", steps=run.events)
        run.finished_at = NOW - 2
    return run


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_bench_confirmation(snap_compare, size):
    """Serving: Benchmark enables once the fresh check is back; no name to type (nothing
    is started or stopped)."""
    assert snap_compare(_bench_confirm(serving_health()), terminal_size=size,
                        run_before=_settle)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_bench_watched_live(snap_compare, size):
    assert snap_compare(Host(ProgressScreen(_bench_run(False), fixed_clock)),
                        terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_bench_watched_live_through_the_router(snap_compare, size):
    """The first line says where the load goes (``--via auto`` took the router)."""
    target = BenchTarget(recipe="qwen3-235b-2node", cluster="2nodes", nodes=["spark1", "spark2"],
                         head="spark1", host="10.0.0.11", port=4000, model="Qwen/Qwen3-235B",
                         engine="vllm", image="vllm/vllm-openai:v0.33.0", via="router")
    run = _bench_run(False)
    run.events.insert(0, Progress(Step.BENCH, "spark1", StepState.OK,
                                  starting(target, "aiperf", "0.13.0")))
    assert snap_compare(Host(ProgressScreen(run, fixed_clock)), terminal_size=size,
                        run_before=_settle)


def test_bench_done(snap_compare):
    assert snap_compare(Host(ProgressScreen(_bench_run(True), fixed_clock)),
                        terminal_size=(120, 40), run_before=_settle)
