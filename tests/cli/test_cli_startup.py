"""``--help`` and ``plan`` build the whole parser, yet load no command's implementation.

commands.py binds each subcommand to a runner that imports the command's module when it
runs; this is what those runners are for (tests/test_startup_imports.py covers the
dashboard and the first frame).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES, REPO, subprocess_env

COMMAND_MODULES = ("sparktui.cli.cluster_cmds", "sparktui.cli.node_cmds",
                   "sparktui.cli.power_cmds", "sparktui.cli.telemetry_cmds",
                   "sparktui.cli.context")


def _modules_after(argv: list[str]) -> list[str]:
    code = f"""
import contextlib, io, json, sys
from sparktui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=subprocess_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["serve", "--help"],
    ["--config", str(EXAMPLE_CONFIG), "--recipes", str(RECIPES), "plan", "glm-4.5-air-mtp"],
])
def test_the_parser_loads_no_command_module_nor_asyncio(argv: list[str]) -> None:
    modules = _modules_after(argv)
    assert "sparktui.cli.commands" in modules
    loaded = [m for m in modules if m in COMMAND_MODULES or m == "asyncio"
              or m.startswith("sparktui.engine")]
    assert loaded == []
