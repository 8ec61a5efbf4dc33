"""The dashboard built on the real engine of a test site, and a bounded wait."""

from __future__ import annotations

import time

from sparktui.tui.app import create_app
from sparktui.tui.options import TuiOptions


def dashboard_app(site, *, watch: bool = False, refresh_seconds: float = 1.0):
    options = TuiOptions(cursor_blink=False, animations=False,
                         refresh_seconds=refresh_seconds, health_timeout=10)
    return create_app(site.loaded, site.recipes, site.engine(), watch, options=options)


async def wait_until(pilot, predicate, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.1)
