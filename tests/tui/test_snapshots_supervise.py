"""Snapshots of supervision on the dashboard (issue 14): "supervised" in the header and
the clusters pane, the restarts in the alerts strip, the head's details with the restart
history, a give-up, and the start confirmation (S), at 80x24 and 120x40. Deterministic: the
example config, a fixed clock, a constructed health whose supervision is what a head
keeps. Update with:
python -m pytest -n 0 tests/tui/test_snapshots_supervise.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from polling import eventually_async, pausing
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from sparktui.engine.status import ClusterHealth
from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Reason,
    Record,
    RestartEvent,
    SupervisionStatus,
)
from sparktui.tui.messages import HealthUpdated
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.details import DetailsScreen
from tui.support import NOW, RecordingEngine, make_app, serving_health

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
RECIPE = "qwen3-235b-2node"
HOLDER = "ops@spark1 pid 7"


pytestmark = pytest.mark.usefixtures("utc")  # times on screen in UTC (conftest)


def _record(status: str, restarts: tuple[RestartEvent, ...], **extra) -> Record:
    return Record(cluster="2nodes", recipe=RECIPE, holder=HOLDER, mode="on-node",
                  status=status, interval=10, window=1800, max_restarts=3,
                  since=NOW - 3600, updated=NOW - 5, restarts=restarts, **extra)


RESTARTS = (
    RestartEvent(NOW - 2400, Failure("health", "spark1", "timed out after 5 s"), True),
    RestartEvent(NOW - 900, Failure("not_running", "spark2", "exited (137)"), True),
    RestartEvent(NOW - 300, Failure("missing", "spark2", "sparktui-qwen3-235b-2node"), False,
                 "preflight: spark2 did not answer"),
)


def supervised_health() -> ClusterHealth:
    """2nodes serves, supervised from its head: 2 restarts in the window, 3 in all."""
    lease = Lease("t0k3n", 60, HOLDER, "2nodes", RECIPE, "on-node", NOW - 3600)
    status = SupervisionStatus("spark1", lease, 3.0, _record("watching", RESTARTS,
                                                             healthy_since=NOW - 200))
    return replace(serving_health(), supervision=status)


def gave_up_health() -> ClusterHealth:
    """The supervisor gave up after the limit; the failed node's last lines are kept."""
    record = _record("gave_up", RESTARTS, reason=Reason("too_many_restarts",
                                                        {"restarts": 3, "window": 1800}),
                     last_lines=("INFO loading safetensors shard 3/12",
                                 "ERROR CUDA out of memory"), last_lines_node="spark2")
    return replace(serving_health(), supervision=SupervisionStatus("spark1", None, None, record))


def _with(health: ClusterHealth, *keys: str, to_the_end: bool = False):
    """The dashboard given ``health``, then ``keys``; ``to_the_end``: the details view
    scrolled down to the supervision below the node's rows."""
    async def run_before(pilot: Pilot) -> None:
        dashboard = pilot.app.dashboard  # type: ignore[attr-defined]
        await eventually_async(lambda: dashboard.is_mounted, look=pausing(pilot))
        dashboard.post_message(HealthUpdated(health))
        await pilot.pause(0.2)
        if keys:
            await pilot.press(*keys)
            await pilot.pause(0.2)
        if to_the_end:
            assert isinstance(pilot.app.screen, DetailsScreen)
            pilot.app.screen.query_one(VerticalScroll).scroll_end(animate=False)
            await pilot.pause(0.2)
    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_supervised_header_and_clusters_pane(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_with(supervised_health(), "1"))


@pytest.mark.parametrize("size", SIZES)
def test_head_details_with_the_restart_history(snap_compare, size: str):
    # the nodes pane, the head's row (the first), its details
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_with(supervised_health(), "3", "enter", to_the_end=True))


@pytest.mark.parametrize("size", SIZES)
def test_gave_up_alert_and_details(snap_compare, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_with(gave_up_health(), "3", "enter", to_the_end=True))


async def test_the_head_details_hold_the_history_and_the_others_do_not():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _with(supervised_health(), "3", "enter")(pilot)
        assert isinstance(app.screen, DetailsScreen)
        body = app.screen.body.plain
        assert "supervised by ops@spark1 pid 7 (on-node)" in body
        assert "restarts 2 in the last 30m" in body  # the one of 40 min ago is out
        assert body.count("restarted") >= 2 and "failed: preflight: spark2" in body
        await pilot.press("escape", "down", "enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, DetailsScreen)
        assert "supervision" not in app.screen.body.plain  # spark2 keeps no supervision


async def _supervise_dialog(pilot: Pilot) -> None:
    """S on qwen3-235b-2node, serving on 2nodes: the dialog with its fresh check back."""
    app = pilot.app
    await eventually_async(lambda: "2nodes" in app.dashboard.health,
                           look=pausing(pilot))  # type: ignore[attr-defined]
    assert app.dashboard.recipes.select(RECIPE)  # type: ignore[attr-defined]
    await pilot.press("S")
    await eventually_async(lambda: isinstance(app.screen, ConfirmScreen)
                           and app.screen.health is not None, look=pausing(pilot))
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES)
def test_supervise_confirmation(snap_compare, size: str):
    """The whole check reads at 80x24: both nodes, their workloads and the engine."""
    app = make_app(engine=RecordingEngine(), refresh_seconds=60)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_supervise_dialog)


async def test_the_supervise_check_is_whole_at_80x24():
    """Nothing of the fresh check is cut nor covered by the verdict, the name or the
    buttons (before: a box of 7 rows under the buttons, 3 lines of the check read)."""
    app = make_app(engine=RecordingEngine(), refresh_seconds=60)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await _supervise_dialog(pilot)
        screen = app.screen
        box = screen.query_one("#confirm-health", VerticalScroll)
        text = screen.query_one("#confirm-health-text")
        assert text.region.height >= 5  # spark1, its workload, its engine, spark2, its own
        assert box.content_region.contains_region(text.region), (box.region, text.region)
        assert not box.max_scroll_y
        bottom = screen.query_one("#confirm-bottom")
        assert box.region.bottom <= bottom.region.y, (box.region, bottom.region)
        for button in screen.query("#confirm-box Button"):
            assert screen.query_one("#confirm-box").content_region.contains_region(
                button.region), button
