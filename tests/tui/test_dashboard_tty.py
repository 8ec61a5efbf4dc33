"""``sparktui`` without a terminal refuses to start the dashboard; headless commands run.

Started from cron, a pipe or ``nohup`` the dashboard used to paint escape codes into
its output at full speed for as long as nobody noticed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES, run_module

MESSAGE = ("the dashboard needs a terminal: standard input and output are not a TTY; the "
           "headless commands are listed by sparktui --help\n")


@pytest.mark.parametrize("extra", [[], ["--watch"]])
def test_the_dashboard_needs_a_terminal(tmp_path: Path, extra: list[str]) -> None:
    proc = run_module(["--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), *extra],
                      cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", MESSAGE)


def test_headless_commands_do_not_need_one(tmp_path: Path) -> None:
    proc = run_module(["--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), "plan",
                       "qwen3-235b-2node", "-f", "json"], cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("{")
