"""A node whose docker does not answer: never shown as idle (nodes pane, header, the
stop confirmation), at 80x24 and 120x40. Update with:
python -m pytest tests/tui/test_snapshots_docker.py --snapshot-update
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sparktui.engine.status import ClusterHealth, NodeHealth
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.screens.confirm import ConfirmScreen
from tui.support import NOW, make_app, serving_health
from tui.test_snapshots_actions import Host, _health, _stop_request

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
DOWN = ("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
        "Is the docker daemon running?")


def docker_down_health() -> ClusterHealth:
    """spark1 heads and serves; spark2 answers SSH but its docker does not."""
    serving = serving_health()
    return ClusterHealth("2nodes", [serving.nodes[0], NodeHealth(
        "spark2", True, latency_ms=1.5, docker_error=DOWN)], NOW - 4)


@pytest.mark.parametrize("size", SIZES)
def test_nodes_pane_says_docker_down(snap_compare, size: str):
    async def run_before(pilot: Pilot) -> None:
        pilot.app.dashboard.post_message(HealthUpdated(docker_down_health()))  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        await pilot.press("3")
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_stop_confirmation_with_a_nodes_docker_down(snap_compare, size: str):
    check = lambda: _health(docker_down_health())  # noqa: E731
    screen = Host(ConfirmScreen(_stop_request(check)))

    async def settle(pilot: Pilot) -> None:
        await pilot.pause(0.2)

    assert snap_compare(screen, terminal_size=SIZES[size], run_before=settle)
