"""The dashboard's refresh beside a lying node (issue 28): hypothesis writes what node2
answers (tests/engine/lying_strategies.py) and the dashboard, on the real engine, takes
a health check and a telemetry sample of the cluster. The app holds no exception, the
screen as it goes to the terminal holds no control character, the process's peak RSS
grows by less than 200 MB, and node1 is asked nothing beyond what the same refresh asks
it when node2 says nothing.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from lookalike import Why
from lying_strategies import CRAFTED_JSON, PLANTS_ON_NODE1, SPEAKS_CONTROLS, scenes
from lying_support import EXAMPLES, RAW_CONTROL, Lab, Scene
from polling import eventually_async
from rich.console import Console
from tui.dashboard_support import dashboard_app

# A look-alike, not the real vLLM (tests/lookalike.py): node2's engine lies (hypothesis); node1's
# honest engine per scene.
LOOKALIKE = (Why.FAULT, Why.SPEED)

GROWTH_LIMIT_KB = 200 * 1024


@pytest.fixture
def lab(fresh_cluster, tmp_path: Path):
    bench = Lab(fresh_cluster(2), tmp_path)
    bench.serve_honest()
    yield bench
    bench.close()


def _kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


def _painted(app) -> str:
    """The text of the screen as it goes to the terminal (control segments aside)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(),
                      force_terminal=True, color_system="truecolor", record=True)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


def _refresh(lab: Lab) -> tuple[str, list[str], int]:
    """One dashboard until it has a health check of the cluster (or its error) and a
    telemetry sample: (the screen's text, what went wrong, the peak RSS growth in KiB)."""
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM from now on
    before = _kb("VmRSS")

    async def look() -> tuple[str, list[str]]:
        app = dashboard_app(lab.site, refresh_seconds=0.5)
        async with app.run_test(size=(160, 48)) as pilot:
            dashboard = app.dashboard
            await eventually_async(lambda: app._exception is not None or (
                      ("test" in dashboard.health or "test" in dashboard.health_error)
                      and "test" in dashboard.telemetry), settle=pilot.pause)
            await pilot.press("down")  # node2's row: its details in the panes
            await pilot.pause()
            painted = _painted(app)
            wrong = [f"the cluster's health failed: {dashboard.health_error['test']}"
                     ] if "test" in dashboard.health_error else []
        if app._exception is not None:
            wrong.append(f"the app raised {app._exception!r}")
        return painted, wrong

    painted, wrong = asyncio.run(look())
    return painted, wrong, _kb("VmHWM") - before


def _clean_refresh(lab: Lab) -> None:
    _, problems, _ = _refresh(lab)
    assert not problems, problems


@settings(max_examples=max(1, EXAMPLES - 2), deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@example(scene=SPEAKS_CONTROLS)
@example(scene=CRAFTED_JSON)
@example(scene=PLANTS_ON_NODE1)
@given(scene=scenes())
def test_dashboard_refresh_beside_a_lying_node(lab: Lab, scene: Scene) -> None:
    allowed = lab.baseline_of(("dashboard",), lambda: _clean_refresh(lab))
    lab.tell(scene)
    painted, problems, growth = _refresh(lab)
    if growth > GROWTH_LIMIT_KB:
        problems.append(f"peak RSS grew by {growth // 1024} MB")
    raw = RAW_CONTROL.search(painted)
    if raw:
        problems.append(f"the screen holds {raw.group()!r}: "
                        f"{painted[max(0, raw.start() - 60):raw.start() + 30]!r}")
    foreign = lab.foreign_commands(allowed)
    if foreign:
        problems.append(f"node1 was asked {foreign}")
    assert not problems, "\n".join(problems)
