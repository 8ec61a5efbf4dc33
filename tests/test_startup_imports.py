"""What the dashboard's first frame costs: the modules loaded by then, in a fresh interpreter.

The start-up figure (benchmarks/bench_first_frame.py) rests on these guarantees: the
first frame is painted before pydantic, our models, asyncssh, httpx, prometheus_client,
babel or tomlkit are imported, and the engine imports asyncssh only when it connects.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plan_support import RECIPES, REPO, subprocess_env

HEAVY = ("asyncssh", "cryptography", "httpx", "httpx2", "huggingface_hub", "prometheus_client",
         "babel", "tomlkit",
         "pydantic", "pydantic_core", "sparktui.config.models", "sparktui.config.loader",
         "sparktui.tui.screens.dashboard", "sparktui.tui.controllers", "sparktui.engine.cluster")

# Nodes on a loopback port where nothing listens: a connection is refused at once.
CONFIG = """
[[clusters]]
name = "startup-probe"
nodes = [
  { name = "probe1", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 0 },
  { name = "probe2", ssh_ip = "127.0.0.1", ssh_port = 9, rank = 1 },
]
"""


def _run(code: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=subprocess_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _heavy(modules: list[str]) -> list[str]:
    return sorted(m for m in modules for h in HEAVY if m == h or m.startswith(h + "."))


FIRST_FRAME = """
import asyncio, json, sys
from pathlib import Path
from sparktui.tui.app import create_app
from sparktui.tui.options import TuiOptions
from sparktui.tui.startup import pending_config

at_import = sorted(sys.modules)
pending = pending_config(Path(sys.argv[1]))
app = create_app(pending, Path(sys.argv[2]), None, False, reload_config=pending.load,
                 options=TuiOptions(cursor_blink=False, animations=False))
at_create = sorted(sys.modules)
frames = {}
display = app._display

def spy(screen, renderable):  # Textual calls it with every frame it paints
    if renderable is not None:
        frames.setdefault(type(screen).__name__, sorted(sys.modules))
    display(screen, renderable)

app._display = spy

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(600):
            if app.dashboard is not None and app.dashboard.is_mounted:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        return {"dashboard": app.dashboard is not None, "engine": type(app.engine).__name__,
                "clusters": app.cluster_names()}

result = asyncio.run(main())
print(json.dumps({**result, "at_import": at_import, "at_create": at_create,
                  "order": list(frames), "frames": frames}))
"""


def test_first_frame_is_painted_before_the_heavy_imports(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    data = _run(FIRST_FRAME, str(config), str(RECIPES))
    assert _heavy(data["at_import"]) == []
    assert _heavy(data["at_create"]) == []
    painted = [name for name in data["order"] if name != "Screen"]
    assert painted[:2] == ["StartupScreen", "DashboardScreen"], data["order"]
    assert _heavy(data["frames"]["StartupScreen"]) == []
    # Then the real dashboard, on the validated config and a real engine.
    assert data["dashboard"] is True
    assert data["engine"] == "ClusterEngine"
    assert data["clusters"] == ["startup-probe"]
    assert "sparktui.config.models" in data["frames"]["DashboardScreen"]


ENGINE = """
import asyncio, json, sys
from pathlib import Path
from sparktui.config.loader import load_config
from sparktui.engine.cluster import ClusterEngine

engine = ClusterEngine(load_config(Path(sys.argv[1])).config)
before = "asyncssh" in sys.modules

async def check():
    try:
        health = await engine.health("startup-probe")
        return [n.reachable for n in health.nodes]
    finally:
        await engine.close()

reachable = asyncio.run(check())
print(json.dumps({"before": before, "after": "asyncssh" in sys.modules,
                  "reachable": reachable, "hub": "huggingface_hub" in sys.modules}))
"""


def test_engine_imports_asyncssh_only_when_it_connects(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    data = _run(ENGINE, str(config))
    assert data["before"] is False  # built, no connection yet
    assert data["after"] is True  # the health check tried SSH
    assert data["reachable"] == [False, False]
    assert data["hub"] is False  # only a fit of a model in no node's cache asks the Hub


def test_cli_dashboard_path_imports_no_heavy_module_up_to_the_app() -> None:
    """``sparktui`` up to ``App.run``: the CLI, the parser, config discovery, the app."""
    data = _run("""
import json, sys
from textual.app import App
App.run = lambda self, **kw: None  # stop where the app would take the terminal
sys.stdin.isatty = sys.stdout.isatty = lambda: True  # as on a terminal
from sparktui.cli import main
code = main(["--config", sys.argv[1], "--recipes", sys.argv[2]])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
""", str(REPO / "examples" / "config.toml"), str(RECIPES))
    assert data["code"] == 0
    assert "sparktui.tui.app" in data["modules"]
    assert _heavy(data["modules"]) == []
