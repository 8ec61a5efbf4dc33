"""``ctrl+s`` saves the logs readable by the operator only: they hold what the cluster
printed (paths, hosts, sometimes secrets an engine echoed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sparktui.tui.viewmodel.logtext import save_log

NOW = 1_750_000_000.0


def test_saved_logs_are_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        first = save_log(["spark1 │ INFO one"], tmp_path, "2nodes", NOW)
        second = save_log(["spark1 │ INFO two"], tmp_path, "2nodes", NOW)
    finally:
        os.umask(old)
    assert first != second
    for path in (first, second):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert second.read_text(encoding="utf-8") == "spark1 │ INFO two\n"
