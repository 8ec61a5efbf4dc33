"""Knobs of the dashboard that tests fix (clock, blink, animations) and timings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TuiOptions:
    clock: Callable[[], float] = time.time
    """``time.time`` by default; tests pass a fixed one so ages and uptimes are stable."""
    refresh_seconds: float = 5.0  # pause between the end of a health check and the next
    cycle_seconds: float = 20.0  # --watch: show the next cluster after this long
    health_timeout: float = 20.0
    log_lines_per_node: int = 5000
    reload_seconds: float = 2.0  # how often the config and recipe files are checked for edits
    cursor_blink: bool = True
    animations: bool = True

    @property
    def stale_after(self) -> float:
        """Data older than this is marked stale in the header."""
        return 3 * self.refresh_seconds + self.health_timeout
