"""Snapshots of telemetry: the nodes pane with sparklines, the header, the alerts strip,
and the --watch wall screen. Update with:
python -m pytest tests/tui/test_snapshots_telemetry.py --snapshot-update"""

from __future__ import annotations

import pytest
from polling import eventually_async, pausing
from textual.pilot import Pilot

from sparktui.tui.messages import HealthUpdated, TelemetryUpdated
from sparktui.tui.widgets.alerts import AlertsStrip
from sparktui.tui.widgets.wall import WallPane, tiles
from tui.support import make_app, serving_health
from tui.telemetry_support import telemetry_frame

SMALL = (120, 40)
LARGE = (200, 60)


pytestmark = pytest.mark.usefixtures("utc")  # times on screen in UTC (conftest)


async def _with_telemetry(pilot: Pilot) -> None:
    dashboard = pilot.app.dashboard
    dashboard.post_message(HealthUpdated(serving_health()))
    dashboard.post_message(TelemetryUpdated(telemetry_frame()))
    await pilot.pause(0.2)


def test_nodes_telemetry_120x40(snap_compare):
    assert snap_compare(make_app(), terminal_size=SMALL, run_before=_with_telemetry)


def test_nodes_telemetry_200x60(snap_compare):
    assert snap_compare(make_app(), terminal_size=LARGE, run_before=_with_telemetry)


def test_watch_wall_120x40(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=SMALL, run_before=_with_telemetry)


def test_watch_wall_200x60(snap_compare):
    assert snap_compare(make_app(watch=True), terminal_size=LARGE, run_before=_with_telemetry)


async def test_alerts_strip_shows_while_alerts_exist_and_follows_the_cluster():
    app = make_app(watch=True)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        strip = app.screen.query_one(AlertsStrip)
        assert not strip.display
        app.dashboard.post_message(TelemetryUpdated(telemetry_frame()))
        await eventually_async(lambda: strip.display, look=pausing(pilot))
        assert strip.has_class("-active")
        assert "memory 93% used" in str(strip.render())
        app.dashboard.post_message(TelemetryUpdated(telemetry_frame(alerts=False)))
        await eventually_async(lambda: not strip.display, look=pausing(pilot))
        # a frame of another cluster does not show on this one
        frame_b = telemetry_frame("2nodes-b")
        app.dashboard.post_message(TelemetryUpdated(frame_b))
        await eventually_async(lambda: app.dashboard.telemetry.get("2nodes-b") is frame_b,
                               look=pausing(pilot))
        assert not strip.display
        app.focus_cluster("2nodes-b")
        await eventually_async(lambda: strip.display, look=pausing(pilot))
        assert app.screen.query_one(WallPane).frame.cluster == "2nodes-b"


def test_wall_tiles_from_a_frame():
    shown = tiles(telemetry_frame())
    assert shown["gen"].value == "412" and shown["prompt"].value == "1840"
    assert shown["requests"].value == "2" and shown["requests"].note == "waiting 1"
    assert shown["kv"].value == "47" and not shown["kv"].hot
    assert shown["ttft"].value == "640" and shown["ttft"].note == "p50 182ms"
    assert shown["mem"].value == "93" and shown["mem"].hot and shown["mem"].note == "spark1"
    assert {t.value for t in tiles(None).values()} == {"-"}


def test_nodes_telemetry_80x24(snap_compare):
    """At 80x24 the figures come in two blocks, memory then GPU (#29 item 18)."""
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_with_telemetry)


def test_a_narrow_telemetry_table_cuts_no_figure():
    """The nodes pane's width at 80 columns: every header and figure whole, no ellipsis."""
    from plan_support import EXAMPLE_CONFIG

    from sparktui.config.loader import load_config
    from sparktui.tui.widgets.telemetry_table import telemetry_table

    config = load_config(EXAMPLE_CONFIG).config
    cluster = next(c for c in config.clusters if c.name == "2nodes")
    text = telemetry_table(cluster, telemetry_frame(), 48).plain
    lines = text.splitlines()
    assert all(len(line) <= 48 for line in lines), lines
    assert "…" not in text
    for word in ("swap", "gpu", "power", "temp", "HF free", "512M", "61W", "71°C", "1.3T",
                 "2.1T", "88G/20G/36G"):
        assert word in text, (word, lines)


def test_watch_wall_80x24(snap_compare):
    """At 80x24 the six figures are a 3x2 grid of compact tiles (#29 item 18)."""
    assert snap_compare(make_app(watch=True), terminal_size=(80, 24),
                        run_before=_with_telemetry)


@pytest.mark.parametrize("code", ["en", "de", "es", "fr", "it", "ru"])
async def test_the_wall_and_its_header_cut_nothing_at_80_columns(code: str) -> None:
    """Every tile's label, value and note whole, and what serves in the header (before:
    ``runni…``, ``KV c…``, the big digits cut, ``:30000`` wrapped out of the header)."""
    import importlib

    from tui.test_fit_80x24 import screen_rows
    from tui.test_snapshots_i18n import language

    with language(code) as support:
        from sparktui.i18n import _
        from sparktui.tui.widgets.wall import TILES

        frames = importlib.import_module("tui.telemetry_support")
        app = support.make_app(watch=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await eventually_async(lambda: app.dashboard is not None
                                   and app.dashboard.is_mounted, look=pausing(pilot))
            messages = importlib.import_module("sparktui.tui.messages")
            app.dashboard.post_message(messages.HealthUpdated(support.serving_health()))
            app.dashboard.post_message(messages.TelemetryUpdated(frames.telemetry_frame()))
            await pilot.pause(0.3)
            rows = screen_rows(app)
            wall = app.screen.query_one("#wall").region
        shown = [row[wall.x:wall.right] for row in rows[wall.y:wall.bottom]]
        text = "\n".join(shown)
        assert "…" not in text, shown
        for label in TILES.values():
            assert any(_(label) in row for row in shown), (_(label), shown)
        for figure in ("412", "1840", "2 " + _("waiting {n}").format(n=1), "47", "640",
                       _("p50 {t}").format(t="182ms"), "93 spark1"):
            assert figure in text, (figure, shown)
        assert "qwen3-235b :30000" in rows[0] and _("READ-ONLY") in rows[0], rows[0]
