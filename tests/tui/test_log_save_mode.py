"""``ctrl+s`` saves the logs readable by the operator only: they hold what the cluster
printed (paths, hosts, sometimes secrets an engine echoed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from polling import eventually_async, pausing

from sparktui.engine.status import LogLine
from sparktui.tui.viewmodel.logtext import save_log
from tui.test_logs import LogsHarness

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


HOSTILE = ("\x1bc\x1b(0\x9b2J\x07\x1b]0;retitled\x07\x1b]52;c;ZXZpbA==\x07\rover\u2028"
           "\x1b[31mred\x1b[0m")


async def test_saved_logs_keep_no_terminal_control(tmp_path: Path, monkeypatch) -> None:
    # ctrl+s in the logs pane: what a node printed is written through the terminal filter,
    # so `cat` of the file cannot reset, retitle, clear or write the clipboard
    monkeypatch.chdir(tmp_path)
    app = LogsHarness()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.pane
        pane.cluster, pane.clock = "2nodes", lambda: NOW
        pane.add_lines([LogLine("spark1", "INFO " + HOSTILE), LogLine("spark1", "INFO\tok")])
        await eventually_async(lambda: pane.view.line_count >= 2, look=pausing(pilot))
        pane.view.focus()
        await eventually_async(lambda: pilot.app.focused is pane.view, look=pausing(pilot))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert pane.saved_path is not None
        saved = pane.saved_path.read_text(encoding="utf-8")
    assert [c for c in saved if c not in "\t\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0
                                                     or c == "\u2028")] == []
    # colours and the sequences the view strips go; every other control is an escape
    assert saved == ("spark1 │ INFO \\x1bc\\x1b(0\\x9b2J\\x070;retitled\\x07"
                     "52;c;ZXZpbA==\\x07\\rover\\u2028red\n"
                     "spark1 │ INFO\tok\n")
