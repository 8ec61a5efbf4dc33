"""What the dashboard shows when a node's docker is down and nothing else runs (#29 item
4: unknown, never "nothing"), and a ready recipe of services only (#29 item 5: serving,
not "starting"), at 80x24 and 120x40. Update with:
python -m pytest -n 0 tests/tui/test_snapshots_unknown.py --snapshot-update
"""

from __future__ import annotations

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.cli.cluster_cmds import cluster_state
from sparktui.engine.status import (
    ClusterHealth,
    EngineStatus,
    NodeHealth,
    ServiceInstanceStatus,
    ServiceStatus,
    Workload,
)
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.details import DetailsScreen
from sparktui.tui.viewmodel.health import serving_of
from sparktui.tui.viewmodel.runs import needs_typed_name
from tui.support import NOW, make_app
from tui.test_snapshots_actions import Host, _health, _stop_request
from tui.test_snapshots_docker import DOWN

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


def blind_health() -> ClusterHealth:
    """spark1 answers SSH, its docker does not; spark2 runs nothing."""
    return ClusterHealth("2nodes", [NodeHealth("spark1", True, latency_ms=1.2, docker_error=DOWN),
                                    NodeHealth("spark2", True, latency_ms=1.4)], NOW - 4)


def services_only_health(ready: bool = True) -> ClusterHealth:
    """pools-toy: its data server on each node, no engine; ready (or still probing)."""
    def work(node: str, index: int) -> Workload:
        return Workload(name=f"sparktui-pools-toy--data-{index}", recipe="pools-toy",
                        cluster="2nodes", node=node, rank=0, role="service", runtime="docker",
                        state="running", status="Up 5 minutes", service="data",
                        service_index=index)
    nodes = [NodeHealth(n, True, latency_ms=1.2, workloads=[work(n, i)])
             for i, n in enumerate(("spark1", "spark2"))]
    data = ServiceStatus("data", "pools-toy", "generic", False, False, [
        ServiceInstanceStatus(n, i, f"sparktui-pools-toy--data-{i}", "running", None, ready,
                              "http 8080/") for i, n in enumerate(("spark1", "spark2"))])
    return ClusterHealth("2nodes", nodes, NOW - 4, services=[data])


def test_the_header_state_of_a_services_only_recipe():
    assert serving_of(services_only_health()).state == "serving"
    assert serving_of(services_only_health()).recipe == "pools-toy"
    assert serving_of(services_only_health(ready=False)).state == "starting"


def _with(health: ClusterHealth, *keys: str):
    async def run_before(pilot: Pilot) -> None:
        dashboard = pilot.app.dashboard  # type: ignore[attr-defined]
        await eventually_async(lambda: dashboard.is_mounted, look=pausing(pilot))
        dashboard.post_message(HealthUpdated(health))
        await pilot.pause(0.2)
        if keys:
            await pilot.press(*keys)
            await pilot.pause(0.2)
    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_a_ready_services_only_recipe_is_serving_in_the_header(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_with(services_only_health()))


@pytest.mark.parametrize("size", SIZES)
def test_details_of_a_node_whose_docker_is_down(snap_compare, size: str):
    async def run_before(pilot: Pilot) -> None:
        await _with(blind_health(), "3", "enter")(pilot)
        assert isinstance(pilot.app.screen, DetailsScreen)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


def _stop_confirmation(snap_compare, health: ClusterHealth, size: str) -> bool:
    """The stop's confirmation over ``health``, as its fresh check found it."""
    screen = Host(ConfirmScreen(_stop_request(lambda: _health(health))))

    async def settle(pilot: Pilot) -> None:
        await pilot.pause(0.2)

    return snap_compare(screen, terminal_size=SIZES[size], run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_stop_confirmation_when_a_nodes_docker_is_down_and_nothing_else_runs(snap_compare,
                                                                            size: str):
    assert _stop_confirmation(snap_compare, blind_health(), size)


def test_the_header_is_never_idle_beside_a_node_that_did_not_say():
    assert serving_of(blind_health()).state == "unknown"
    idle = ClusterHealth("2nodes", [NodeHealth("spark2", True)], NOW)
    assert serving_of(idle).state == "idle"
    down = ClusterHealth("2nodes", [NodeHealth("spark2", False, error="timeout")], NOW)
    assert serving_of(down).state == "unknown"


def test_the_restart_and_supervise_confirmations_say_unknown_too():
    """They share the stop's verdict: what they touch may run where docker is down."""
    from sparktui.tui.screens.confirm import verdict

    for verb in ("Restart", "Supervise"):
        said = verdict(blind_health(), lambda w: w.recipe == "toy", verb, "2nodes").plain
        assert said.startswith("What runs on 2nodes is unknown: docker on spark1 does not "
                               "answer.\nSome nodes did not answer"), said
    known = ClusterHealth("2nodes", [NodeHealth("spark2", True)], NOW)
    assert verdict(known, lambda w: True, "Restart", "2nodes").plain == (
        "Nothing of 2nodes runs on its nodes.")


def busy_health() -> ClusterHealth:
    """toy's head runs on spark1, and its API did not answer in time (a busy head)."""
    head = Workload(name="sparktui-toy", recipe="toy", cluster="2nodes", node="spark1",
                    rank=0, role="head", runtime="docker", state="running",
                    status="Up 2 hours", port=8000)
    busy = EngineStatus(health_ok=True, ready=False, timed_out=True, recipe="toy", port=8000)
    return ClusterHealth("2nodes", [
        NodeHealth("spark1", True, latency_ms=1.2, workloads=[head], engines=[busy]),
        NodeHealth("spark2", True, latency_ms=1.4)], NOW - 4)


def test_a_head_whose_api_timed_out_is_unknown_never_starting_nor_not_serving():
    """The busiest cluster is the one whose probes time out: it is never one click away
    from a stop, and never "not serving"."""
    health = busy_health()
    assert not health.serving and health.all_known  # what the gate read before
    assert serving_of(health).state == "unknown"
    assert needs_typed_name(health)
    assert cluster_state(health) == "unknown: the API on spark1 did not answer in time"


@pytest.mark.parametrize("size", SIZES)
def test_stop_confirmation_when_a_heads_api_timed_out(snap_compare, size: str):
    assert _stop_confirmation(snap_compare, busy_health(), size)


@pytest.mark.parametrize("size", SIZES)
def test_the_header_says_unknown_when_a_heads_api_timed_out(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_with(busy_health()))
