"""Snapshots of the k9s-style additions at 80x24 and 120x40: the restart confirmation
(R), and the one it refuses (another recipe serves its model name behind the router),
the inspect view (i), the nodes table sorted by memory with its filter open, and
the help listing the new keys. Deterministic: the example config, a fixed clock,
constructed health, figures and inspect. Update only these with:
python -m pytest -n 0 tests/tui/test_snapshots_k9s.py --snapshot-update
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.config.loader import load_config, load_recipe
from sparktui.engine.status import ClusterHealth, EngineStatus, NodeHealth, Workload
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan
from sparktui.tui.controllers.flows import restart_request
from sparktui.tui.screens.confirm import ConfirmScreen
from sparktui.tui.screens.inspect import InspectScreen
from sparktui.tui.viewmodel.node_sort import COLUMNS
from sparktui.tui.viewmodel.runs import names_seen
from tui.k9s_support import described, show_four
from tui.support import (
    EXAMPLE_CONFIG,
    NOW,
    RECIPES,
    RecordingEngine,
    make_app,
    open_and_type,
)
from tui.test_snapshots_actions import Host
from tui.test_snapshots_i18n import language

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES)
def test_restart_confirmation(snap_compare, size: str):
    """R on a serving 2nodes: what is replaced (✖), the name to type."""
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await eventually_async(lambda: "2nodes" in app.dashboard.health, look=pausing(pilot))
        assert app.dashboard.recipes.select("qwen3-235b-2node")
        await pilot.press("R")
        await eventually_async(lambda: isinstance(app.screen, ConfirmScreen)
                               and app.screen.health is not None, look=pausing(pilot))
        await _settle(pilot)

    app = make_app(engine=RecordingEngine(), refresh_seconds=60)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


RECIPE, CLUSTER = "qwen3-235b-2node", "2nodes-b"  # 2nodes-b has a router (examples/)


def taken_health(other: str = f"{RECIPE}-copy") -> ClusterHealth:
    """2nodes-b serves RECIPE, and ``other`` (a copy of it, the same served name) beside
    it on spark3: both heads list qwen3-235b."""
    def work(name: str, node: str, rank: int, role: str, port: int) -> Workload:
        return Workload(name=f"sparktui-{name}", recipe=name, cluster=CLUSTER, node=node,
                        rank=rank, role=role, runtime="docker", state="running",
                        status="Up 2 hours", port=port)
    heads = [EngineStatus(health_ok=True, ready=True, models=["qwen3-235b"], running=0,
                          waiting=0, recipe=name, port=port)
             for name, port in ((RECIPE, 30000), (other, 30001))]
    return ClusterHealth(CLUSTER, [
        NodeHealth("spark3", True, latency_ms=1.2, engines=heads,
                   workloads=[work(RECIPE, "spark3", 0, "head", 30000),
                              work(other, "spark3", 0, "head", 30001)]),
        NodeHealth("spark4", True, latency_ms=1.4,
                   workloads=[work(RECIPE, "spark4", 1, "worker", 30000),
                              work(other, "spark4", 1, "worker", 30001)]),
    ], NOW - 1)


def _plan() -> LaunchPlan:
    loaded = load_config(EXAMPLE_CONFIG)
    return build_plan(loaded, load_recipe(RECIPES / RECIPE / "recipe.toml"), CLUSTER)


def refused_restart(health: ClusterHealth) -> ConfirmScreen:
    """The dashboard's restart confirmation of RECIPE on 2nodes-b (``restart_request``:
    the engine's ``restart_refusal`` on the fresh check), the check answering ``health``."""
    async def check() -> ClusterHealth:
        return health
    return ConfirmScreen(restart_request(_plan(), check))


@pytest.mark.parametrize("size", SIZES)
def test_restart_refused_when_its_name_is_taken(snap_compare, size: str):
    """The reason where the verdict goes, no name to type, Restart disabled."""
    async def run_before(pilot: Pilot) -> None:
        await eventually_async(lambda: isinstance(pilot.app.screen, ConfirmScreen)
                               and pilot.app.screen.health is not None, look=pausing(pilot))
        await _settle(pilot)

    assert snap_compare(Host(refused_restart(taken_health())), terminal_size=SIZES[size],
                        run_before=run_before)


async def test_a_refusal_shows_node_text_as_text_and_only_cancel_answers():
    other = "[bold red]x[/bold red]\x1b[2J"  # a recipe label as a node may say it
    app = Host(refused_restart(taken_health(other)))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        await eventually_async(lambda: screen.health is not None, look=pausing(pilot))
        verdict = str(screen.query_one("#confirm-verdict").render())
        assert "refusing to restart qwen3-235b-2node: qwen3-235b is already served by " \
               "recipe [bold red]x[/bold red]\\x1b[2J on spark3" in verdict, verdict
        assert screen.confirm_button.disabled
        assert not screen.query_one("#confirm-name").display  # nothing to type
        await pilot.click("#confirm-ok")
        await pilot.pause()
        assert app.screen is screen  # not confirmed
        await pilot.press("escape")
        await eventually_async(lambda: app.screen is not screen, look=pausing(pilot))


def test_serve_warns_of_the_same_taken_name_and_its_preflight_refuses():
    """Serve stops nothing first: its preflight refuses on a fresh look, and the plan
    screen says beforehand what the last health saw."""
    [line] = names_seen(taken_health(), _plan())
    assert line.startswith("Preflight will refuse: qwen3-235b is already served by recipe "
                           f"{RECIPE}-copy on spark3"), line
    assert names_seen(None, _plan()) == []


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


# -- in Russian and German (the longest strings), at 80x24 -----------------------------------


def _text(request: pytest.FixtureRequest) -> str:
    """The snapshot just compared as plain text ("" while --snapshot-update writes it)."""
    if request.config.getoption("--snapshot-update"):
        return ""
    path = Path(__file__).parent / "__snapshots__" / Path(__file__).stem / \
        f"{request.node.name}.svg"
    rows: dict[str, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                             path.read_text(encoding="utf-8")):
        x, y, body = match.groups()
        rows.setdefault(y, []).append((float(x), html.unescape(body).replace("\xa0", " ")))
    return "\n".join("".join(t for _x, t in sorted(parts))
                     for _y, parts in sorted(rows.items(), key=lambda kv: float(kv[0])))


@pytest.fixture(params=["ru", "de"])
def support(request: pytest.FixtureRequest):
    """tui.support imported afresh in Russian or German (tui/test_snapshots_i18n.py)."""
    with language(request.param) as module:
        yield module


def test_restart_confirmation_translated_80x24(snap_compare, support, request) -> None:
    from sparktui.i18n import _
    from sparktui.tui.screens.confirm import ConfirmScreen as Confirm

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await eventually_async(lambda: "2nodes" in app.dashboard.health, look=pausing(pilot))
        assert app.dashboard.recipes.select("qwen3-235b-2node")
        await pilot.press("R")
        await eventually_async(lambda: isinstance(app.screen, Confirm)
                               and app.screen.health is not None, look=pausing(pilot))
        await _settle(pilot)

    app = support.make_app(engine=support.RecordingEngine(), refresh_seconds=60)
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=run_before)
    text = _text(request)
    assert not text or _("Restart {recipe} on {cluster}").format(
        recipe="qwen3-235b-2node", cluster="2nodes") in text


def test_inspect_view_translated_80x24(snap_compare, support, request) -> None:
    from sparktui.i18n import _
    from sparktui.tui.screens.inspect import InspectScreen as Inspect
    from tui.k9s_support import described as made

    assert snap_compare(Host(Inspect(made())), terminal_size=SIZES["80x24"],
                        run_before=_settle)
    text = _text(request)
    assert not text or all(label in text for label in (_("container"), _("image ID"),
                                                       _("labels"), _("Esc closes")))
