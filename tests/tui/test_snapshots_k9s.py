"""Snapshots of the k9s-style additions at 80x24 and 120x40: the restart confirmation
(R), the inspect view (i), the nodes table sorted by memory with its filter open, and
the help listing the new keys. Deterministic: the example config, a fixed clock,
constructed health, figures and inspect. Update only these with:
python -m pytest -n 0 tests/tui/test_snapshots_k9s.py --snapshot-update
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.inspect import InspectScreen
from sparktui.tui.viewmodel.node_sort import COLUMNS
from tui.k9s_support import described, show_four
from tui.support import RecordingEngine, make_app, open_and_type, wait_for
from tui.test_snapshots_actions import Host

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES)
def test_restart_confirmation(snap_compare, size: str):
    """R on a serving 2nodes: what is replaced (✖), the name to type."""
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: "2nodes" in app.dashboard.health)
        assert app.dashboard.recipes.select("qwen3-235b-2node")
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                       and app.screen.health is not None)
        await _settle(pilot)

    app = make_app(engine=RecordingEngine(), refresh_seconds=60)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_inspect_view(snap_compare, size: str):
    assert snap_compare(Host(InspectScreen(described())), terminal_size=SIZES[size],
                        run_before=_settle)


@pytest.mark.parametrize("size", SIZES)
def test_nodes_sorted_by_memory_with_the_filter_open(snap_compare, size: str):
    async def run_before(pilot: Pilot) -> None:
        await show_four(pilot)
        await pilot.press("3", *["greater_than_sign"] * COLUMNS.index("mem"))
        await open_and_type(pilot, "slash", *"spark")
        await _settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


def test_help_at_80x24(snap_compare):
    assert snap_compare(make_app(), terminal_size=SIZES["80x24"], press=["question_mark"])
