"""Snapshots of pulling from the dashboard: ``P``'s confirmation (a fresh check first,
nothing to type), a pull watched live (bytes, rate and time left per node, from
constructed reports on a fixed clock), and a serve refused for a missing image that
offers the pull.

Update with: python -m pytest -n 0 tests/tui/test_snapshots_pull.py --snapshot-update
"""

from __future__ import annotations

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.api import (
    ActionResult,
    Progress,
    PullKind,
    Step,
    StepState,
    Transfer,
)
from sparktui.engine.workloads.preflight import PreflightSaid
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.said import said
from sparktui.tui.actions import Action
from sparktui.tui.controllers.pull import pull_request
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.progress import ProgressScreen
from sparktui.tui.viewmodel.runs import ActionRun
from tui.support import EXAMPLE_CONFIG, NOW, RECIPES, fixed_clock, serving_health
from tui.test_snapshots_actions import Host, _settle

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
RECIPE, CLUSTER = "qwen3-235b-2node", "2nodes"
GIB = 1 << 30


def _plan() -> LaunchPlan:
    loaded = load_config(EXAMPLE_CONFIG)
    return build_plan(loaded, load_recipe(RECIPES / RECIPE / "recipe.toml"), CLUSTER)


@pytest.mark.parametrize("size", SIZES)
def test_pull_confirmation(snap_compare, size: str):
    async def check():
        return serving_health()

    async def run_before(pilot: Pilot) -> None:
        await eventually_async(lambda: isinstance(pilot.app.screen, ConfirmScreen)
                               and pilot.app.screen.health is not None, look=pausing(pilot))
        await _settle(pilot)

    assert snap_compare(Host(ConfirmScreen(pull_request(_plan(), check))),
                        terminal_size=SIZES[size], run_before=run_before)


def pulling_run() -> ActionRun:
    """spark1 fetched the image from the registry and copies it to spark2; the model is
    coming from the Hub onto spark1. Reports 4 s apart on the fixed clock."""
    events = [Progress(Step.PULL_IMAGE, "spark1", StepState.OK, "registry"),
              Progress(Step.PULL_IMAGE, "spark2", StepState.STARTED, "spark1"),
              Progress(Step.PULL_MODEL, "spark1", StepState.STARTED, "hub")]
    run = ActionRun(1, Action.PULL, CLUSTER, RECIPE, NOW - 60, events=events)
    for at, image2, model1 in ((NOW - 4, 2 * GIB, 10 * GIB), (NOW, 6 * GIB, 14 * GIB)):
        run.transfers.add(Transfer(PullKind.IMAGE, "spark1", "registry", 20 * GIB, 20 * GIB), at)
        run.transfers.add(Transfer(PullKind.IMAGE, "spark2", "spark1", image2, 20 * GIB), at)
        run.transfers.add(Transfer(PullKind.MODEL, "spark1", "hub", model1, 440 * GIB), at)
    return run


@pytest.mark.parametrize("size", SIZES)
def test_pull_watched_live(snap_compare, size: str):
    """spark2's image at 1 GiB/s with 14 s left; spark1's model at 1 GiB/s; spark1's
    image done (✓); the total row sums them."""
    assert snap_compare(Host(ProgressScreen(pulling_run(), fixed_clock)),
                        terminal_size=SIZES[size], run_before=_settle)


def refused_serve() -> ActionRun:
    plan = _plan()
    missing = said(PreflightSaid.NOT_PRESENT, image=plan.image, node="spark2",
                   pull="docker pull " + plan.image)
    events = [Progress(Step.PREFLIGHT, "spark2", StepState.FAILED, missing)]
    run = ActionRun(1, Action.SERVE, CLUSTER, RECIPE, NOW - 5, events=events, plan=plan)
    run.result = ActionResult(False, "spark2", Step.PREFLIGHT, missing, steps=events)
    run.finished_at = NOW - 4
    return run


@pytest.mark.parametrize("size", SIZES)
def test_serve_refused_for_a_missing_image_offers_the_pull(snap_compare, size: str):
    """The failure names the node and image, and P (in the footer) pulls them."""
    assert snap_compare(Host(ProgressScreen(refused_serve(), fixed_clock)),
                        terminal_size=SIZES[size], run_before=_settle)
