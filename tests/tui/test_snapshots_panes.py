"""Snapshots that complete the set: each pane in focus, the power screens, and progress
at 120x40 and 200x60 (the rest are in test_snapshots*.py). Deterministic: the example
config, a fixed clock, constructed health and log lines, no hosts.
Update only these with:
python -m pytest tests/tui/test_snapshots_panes.py --snapshot-update
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sparktui.config.loader import load_config
from sparktui.engine.api import ActionResult, Outcome, Progress
from sparktui.plan.power import plan_off
from sparktui.tui.actions import Action
from sparktui.tui.controllers.power import power_request
from sparktui.tui.messages import HealthUpdated, LogsArrived
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.power_menu import PowerMenuScreen, power_choices
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import EXAMPLE_CONFIG, NOW, fixed_clock, make_app, serving_health, two_node_lines
from tui.test_snapshots_actions import Host, _health, _run

SIZES = {"120x40": (120, 40), "200x60": (200, 60)}
PANE_KEYS = {"clusters": "1", "nodes": "3", "plan": "4", "logs": "5"}


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.2)


def _pane(key: str):
    """Health and log lines of a serving cluster, then the pane's key."""
    async def run_before(pilot: Pilot) -> None:
        dashboard = pilot.app.dashboard  # type: ignore[attr-defined]
        dashboard.post_message(HealthUpdated(serving_health()))
        dashboard.post_message(LogsArrived("2nodes", two_node_lines(30)))
        await _settle(pilot)
        if key == "4":  # a recipe that fits 2nodes, picked by name (the list grows)
            assert dashboard.recipes.select("qwen3-235b-2node")
            await _settle(pilot)
        await pilot.press(key)
        await _settle(pilot)
    return run_before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pane", PANE_KEYS)
def test_pane_in_focus(snap_compare, pane: str, size: str):
    assert snap_compare(make_app(), terminal_size=SIZES[size],
                        run_before=_pane(PANE_KEYS[pane]))


# -- power ---------------------------------------------------------------------------------


def _power_confirm() -> Host:
    """Power off 2nodes while it serves: the plan in words, the name to type."""
    config = load_config(EXAMPLE_CONFIG).config
    request = power_request(config, plan_off(config, "2nodes"),
                            lambda: _health(serving_health()))
    return Host(ConfirmScreen(request))


@pytest.mark.parametrize("size", SIZES)
def test_power_confirm_serving(snap_compare, size: str):
    assert snap_compare(_power_confirm(), terminal_size=SIZES[size], run_before=_settle)


def test_power_menu(snap_compare):
    screen = PowerMenuScreen("2nodes", power_choices("2nodes", ["4nodes-switch", "2nodes-b"]))
    assert snap_compare(Host(screen), terminal_size=SIZES["120x40"], run_before=_settle)


POWER_STEPS = [
    Progress("preflight", None, "started", "Home Assistant at http://homeassistant.local:8123"),
    Progress("preflight", None, "ok", "switch.spark1 on, switch.spark2 on, switch.rack on"),
    Progress("shutdown", "spark1", "started", "sudo poweroff"),
    Progress("shutdown", "spark2", "started", "sudo poweroff"),
    Progress("shutdown", "spark1", "ok", "sent"),
    Progress("shutdown", "spark2", "ok", "sent"),
    Progress("halt", "spark1", "waiting", "until it stops answering SSH (120 s)"),
    Progress("halt", "spark2", "waiting", "until it stops answering SSH (120 s)"),
    Progress("halt", "spark1", "ok", "stopped answering SSH after 8.2 s"),
    Progress("halt", "spark2", "failed", "still answers SSH after 120 s"),
    Progress("power_off", "spark1", "started", "switch.spark1", "switch.spark1"),
    Progress("power_off", "spark1", "ok", "switch.spark1 is off", "switch.spark1"),
    Progress("power_off", "spark2", "failed", "kept on: spark2 did not go down", "switch.spark2"),
    Progress("power_off", None, "failed", "kept on: spark2 did not go down", "switch.rack"),
]

POWER_OUTCOMES = [
    Outcome("shutdown", "spark1", True, "stopped answering SSH after 8.2 s", "spark1"),
    Outcome("shutdown", "spark2", False, "still answers SSH after 120 s", "spark2"),
    Outcome("power_off", "switch.spark1", True, "switch.spark1 is off", "spark1"),
    Outcome("power_off", "switch.spark2", False, "kept on: spark2 did not go down", "spark2"),
    Outcome("power_off", "switch.rack", False, "kept on: spark2 did not go down"),
]


def _power_run() -> ActionRun:
    config = load_config(EXAMPLE_CONFIG).config
    run = ActionRun(2, Action.POWER, "2nodes", None, NOW - 131, events=list(POWER_STEPS),
                    power=plan_off(config, "2nodes"))
    run.result = ActionResult(False, "spark2", "shutdown", "still answers SSH after 120 s",
                              run.events, POWER_OUTCOMES)
    run.finished_at = NOW - 1
    return run


@pytest.mark.parametrize("size", SIZES)
def test_progress_power_partly_done(snap_compare, size: str):
    """One node never went down: its entity and the rack stay on; done and not done."""
    screen = ProgressScreen(_power_run(), fixed_clock)
    assert snap_compare(Host(screen), terminal_size=SIZES[size], run_before=_settle)


def test_progress_mid_serve_200x60(snap_compare):
    screen = ProgressScreen(_run(False), fixed_clock)
    assert snap_compare(Host(screen), terminal_size=SIZES["200x60"], run_before=_settle)
