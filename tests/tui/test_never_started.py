"""A container docker created and never started (its start failed: no GPU runtime, an
entrypoint that does not exist) reads "created, never started", never as facts docker's
placeholders (exit code 128, StartedAt 0001-01-01); a failure of no node says where it
failed without "on -". The nodes pane at 80x24 and 120x40. Update with:
python -m pytest -n 0 tests/tui/test_never_started.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.pilot import Pilot

from sparktui.engine.api import ActionResult, Step
from sparktui.engine.status import ClusterHealth
from sparktui.engine.workloads.inspect import Described
from sparktui.labels import container_state
from sparktui.present.container import container_summary
from sparktui.tui.actions import Action
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import make_app, serving_health

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
ZERO = "0001-01-01T00:00:00Z"


def never_started_health() -> ClusterHealth:
    """serve's docker run failed on both nodes after docker created the containers."""
    health = serving_health()
    nodes = [replace(n, engine=None, workloads=[
        replace(w, state="created", status="Created", exit_code=128, started_at=ZERO)
        for w in n.workloads], engines=[]) for n in health.nodes]
    return replace(health, nodes=nodes)


@pytest.mark.parametrize("size", SIZES)
def test_the_nodes_pane_says_created_never_started(snap_compare, size: str):
    async def run_before(pilot: Pilot) -> None:
        pilot.app.dashboard.post_message(HealthUpdated(never_started_health()))  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        await pilot.press("3")
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


def test_a_state_word_shows_no_placeholder_of_docker():
    assert container_state("created", 128) == "created, never started"
    assert container_state("created", 0, zero=True) == "created, never started"
    assert container_state("created", 128, short=True) == "not started"
    assert container_state("exited", 137) == "exited (137)"
    assert container_state("exited", 0) == "exited"
    assert container_state("exited", 0, zero=True) == "exited (0)"
    assert container_state("running", 1) == "running"


def test_inspect_of_a_never_started_container_shows_no_zero_time():
    raw = {"State": {"Status": "created", "StartedAt": ZERO, "ExitCode": 128},
           "Config": {"Image": "vllm:test"}, "Path": "vllm", "Args": ["serve"]}
    rows = dict(container_summary(Described("spark1", "sparktui-x", raw)))
    assert rows["state"] == "created, never started"
    started = {**raw, "State": {"Status": "running", "StartedAt": "2025-06-15T12:51:40Z"}}
    assert dict(container_summary(Described("spark1", "sparktui-x", started)))["state"] == \
        "running (2025-06-15T12:51:40Z)"


def test_a_failure_of_no_node_says_where_without_a_dash():
    run = ActionRun(1, Action.BENCH, "2nodes", "glm", 0.0,
                    result=ActionResult(False, failed_step=Step.BENCH, detail="aiperf died"))
    assert run.outcome() == "benchmark failed at benchmark"
    run = ActionRun(1, Action.STOP, "2nodes", None, 0.0,
                    result=ActionResult(False, failed_node="spark2", failed_step=Step.STOP))
    assert run.outcome() == "stop failed on spark2 at stop"


def test_bench_of_a_recipe_when_nothing_serves_says_nothing_not_a_dash():
    from sparktui.engine.bench.target import pick
    from sparktui.errors import SparkError

    idle = ClusterHealth("2nodes", [], 0.0)
    with pytest.raises(SparkError) as refused:
        pick(idle, "glm")
    assert refused.value.render().endswith("serving: nothing")
