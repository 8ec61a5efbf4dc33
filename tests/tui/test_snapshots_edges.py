"""Snapshots of the rough edges made smooth (issue 17), at 80x24 and 120x40: the
dashboard and the logs pane with a footer of whole keys, the recipes that do not fit
marked, a config without clusters, --watch saying read-only, log lines wrapped between
words, and the dashboard in Russian and German at 80x24.

Update only these with: python -m pytest -n 0 tests/tui/test_snapshots_edges.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.config.loader import load_config
from sparktui.engine.status import LogLine
from sparktui.tui.messages import HealthUpdated, LogsArrived
from tui.support import make_app, serving_health, two_node_lines
from tui.test_snapshots_i18n import language

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
pytestmark = pytest.mark.parametrize("size", list(SIZES))


async def _settle(pilot: Pilot) -> None:
    await pilot.pause(0.3)


def _health(pilot_app, health=None) -> None:
    pilot_app.dashboard.post_message(HealthUpdated(health or serving_health()))


def test_dashboard(snap_compare, size: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        _health(pilot.app)
        await _settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


def long_lines() -> list[LogLine]:
    return [*two_node_lines(6),
            LogLine("spark1", "INFO 06-15 15:07:01 [api_server.py:97] Started server process "
                              "with the OpenAI-compatible API on 0.0.0.0:30000, serving the "
                              "model nvidia/Qwen3-235B-A22B-FP4 with tensor parallel size 2")]


def test_logs_wrapped_between_words(snap_compare, size: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await pilot.press("5")
        _health(app)
        app.dashboard.post_message(LogsArrived("2nodes", long_lines()))
        await eventually_async(lambda: len(app.dashboard.logs.view.lines) >= 8, look=pausing(pilot))
        await pilot.press("w")
        await _settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.fixture
def solo(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('[[clusters]]\nname = "solo"\n'
                    'nodes = [{ name = "s1", ssh_ip = "10.0.0.21", rank = 0 }]\n',
                    encoding="utf-8")
    return path


def test_recipes_that_do_not_fit_come_last(snap_compare, size: str, solo: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        pilot.app.dashboard.recipes.option_list.scroll_end(animate=False)
        await _settle(pilot)

    assert snap_compare(make_app(config=load_config(solo)), terminal_size=SIZES[size],
                        run_before=run_before)


def test_no_clusters(snap_compare, size: str, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the path the plan names: the same on every run
    Path("config.toml").write_text("# nothing yet\n", encoding="utf-8")
    app = make_app(config=load_config(Path("config.toml")))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_settle)


def test_watch_says_read_only(snap_compare, size: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        _health(pilot.app)
        await pilot.press("s")
        await eventually_async(lambda: bool(pilot.app._notifications), look=pausing(pilot))
        await _settle(pilot)

    assert snap_compare(make_app(watch=True), terminal_size=SIZES[size],
                        run_before=run_before)


@pytest.fixture(params=["ru", "de"])
def lang(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    with language(request.param) as support:
        yield support


def test_dashboard_translated(snap_compare, size: str, lang: ModuleType) -> None:
    from sparktui.tui.messages import HealthUpdated as Translated  # the fresh module's

    async def run_before(pilot: Pilot) -> None:
        pilot.app.dashboard.post_message(Translated(lang.serving_health()))
        await _settle(pilot)

    assert snap_compare(lang.make_app(), terminal_size=SIZES[size], run_before=run_before)
