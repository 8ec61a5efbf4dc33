"""A foreign workload (its labels name another node, issue 28): listed and marked as such
in the nodes pane and in the stop confirmation, never among what the stop touches; at
80x24 and 120x40. Update with:
python -m pytest tests/tui/test_snapshots_foreign.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.pilot import Pilot

from sparktui.engine.status import ClusterHealth, Workload
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.screens.confirm import ConfirmScreen
from tui.support import make_app, serving_health
from tui.test_snapshots_actions import Host, _health, _stop_request

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
EVIL = Workload(name="sparktui-evil", recipe="evil", cluster="2nodes", node="spark2", rank=0,
                role="head", runtime="docker", state="running", status="Up 3 minutes",
                foreign="labelled for node 'spark1', listed by spark2")


def foreign_health() -> ClusterHealth:
    """spark1 and spark2 serve qwen3; spark2 also lists a container labelled for spark1."""
    serving = serving_health()
    spark2 = serving.nodes[1]
    return replace(serving, nodes=[serving.nodes[0],
                                   replace(spark2, workloads=[*spark2.workloads, EVIL])])


@pytest.mark.parametrize("size", SIZES)
def test_nodes_pane_marks_a_foreign_workload(snap_compare, size: str):
    async def run_before(pilot: Pilot) -> None:
        pilot.app.dashboard.post_message(HealthUpdated(foreign_health()))  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        await pilot.press("3")
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_stop_confirmation_leaves_a_foreign_workload_alone(snap_compare, size: str):
    check = lambda: _health(foreign_health())  # noqa: E731
    screen = Host(ConfirmScreen(_stop_request(check)))

    async def settle(pilot: Pilot) -> None:
        await pilot.pause(0.2)

    assert snap_compare(screen, terminal_size=SIZES[size], run_before=settle)
