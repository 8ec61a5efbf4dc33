"""The dashboard built on the real engine of a test site, and a bounded wait."""

from __future__ import annotations

from textual.widgets import DataTable

from sparktui.config.loader import load_config
from sparktui.engine.cluster import ClusterEngine
from sparktui.tui.app import create_app
from sparktui.tui.options import TuiOptions


def dashboard_app(site, *, watch: bool = False, refresh_seconds: float = 1.0,
                  live: bool = False):
    """``live``: the app reloads the config file when it changes (every 0.2 s) and builds
    a new engine for it, as ``sparktui`` does."""
    options = TuiOptions(cursor_blink=False, animations=False,
                         refresh_seconds=refresh_seconds, health_timeout=10,
                         reload_seconds=0.2 if live else 2.0)
    extra = dict(reload_config=lambda: load_config(site.config_path),
                 engine_factory=lambda loaded: ClusterEngine(loaded.config)) if live else {}
    return create_app(site.loaded, site.recipes, site.engine(), watch, options=options,
                      **extra)


def table_text(app) -> str:
    """The nodes table of the screen on top, one line per row."""
    table = app.screen.query_one(DataTable)
    return "\n".join(" ".join(str(c) for c in table.get_row_at(i))
                     for i in range(table.row_count))
