"""The first frame of ``sparktui``: the dashboard's skeleton with the names read from
config.toml, before the config is validated. Update with --snapshot-update."""

from __future__ import annotations

from pathlib import Path

from sparktui.tui import app as app_module
from sparktui.tui.app import SparkApp
from sparktui.tui.options import TuiOptions
from sparktui.tui.startup import PendingConfig, pending_config
from tui.support import EXAMPLE_CONFIG, RECIPES

SMALL = (120, 40)


class _FirstFrame(SparkApp):
    """The app as it paints its first frame: the load (which follows) never starts here,
    so no engine is built for the example config's addresses."""

    CSS_PATH = Path(app_module.__file__).with_name("app.tcss")  # not beside this test

    def _start_loading(self, pending: PendingConfig) -> None:
        pass


def _first_frame(watch: bool) -> SparkApp:
    pending = pending_config(EXAMPLE_CONFIG)
    return _FirstFrame(pending, RECIPES, None, watch=watch, reload_config=pending.load,
                       options=TuiOptions(cursor_blink=False, animations=False))


def test_startup_skeleton_120x40(snap_compare):
    assert snap_compare(_first_frame(watch=False), terminal_size=SMALL)


def test_startup_skeleton_watch_120x40(snap_compare):
    assert snap_compare(_first_frame(watch=True), terminal_size=SMALL)
