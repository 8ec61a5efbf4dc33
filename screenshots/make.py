"""Make the README's screenshots from the real app on the test cluster.

    python screenshots/make.py [--out screenshots] [--size 160x46]

Starts two simulated Sparks (``tests/hosts``: a real sshd per node on loopback, the
docker stand-in and the fake engine), serves a recipe through the dashboard exactly as
an operator would (``s``, then Serve), and saves SVG screenshots with Textual's
``export_screenshot``: the dashboard of the serving cluster, the serve's progress, the
stop confirmation (after its fresh health check) and ``--watch``. Needs ``/usr/sbin/sshd``
like the tests; takes well under a minute. Nothing leaves this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the test hosts live with the tests

from hosts.cluster import TestCluster  # noqa: E402

from sparktui.config.loader import load_config  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.i18n import install  # noqa: E402
from sparktui.tui.app import SparkApp, create_app  # noqa: E402
from sparktui.tui.options import TuiOptions  # noqa: E402
from sparktui.tui.screens.confirm import ConfirmScreen  # noqa: E402
from sparktui.tui.screens.progress import ProgressScreen  # noqa: E402
from sparktui.tui.screens.serve_plan import ServePlanScreen  # noqa: E402
from sparktui.tui.widgets.logs import LogsPane  # noqa: E402

CLUSTER = "duo"
RECIPE = "qwen3-30b-a3b"
RECIPE_TOML = """\
description = "Qwen3 30B-A3B (FP8) across two Sparks, tensor parallel 2"
engine = "vllm"
docker_image = "nvcr.io/nvidia/vllm:25.10-py3"
model = "Qwen/Qwen3-30B-A3B-FP8"
port = 30000
required_nodes = 2
tensor_parallel_size = 2
entrypoint = ["vllm", "serve"]
args = ["--max-model-len", "32768", "--gpu-memory-utilization", "0.85"]
"""
TOP = ("telemetry_interval_seconds = 1\nhealth_timeout_seconds = 3\nconnect_timeout_seconds = 3\n"
       "command_timeout_seconds = 15\nready_timeout_seconds = 30\n")
WAIT_SECONDS = 40.0


async def wait_until(pilot, predicate, what: str, seconds: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshots: timed out waiting for {what}")
        await pilot.pause(0.1)


def save(app: SparkApp, out: Path, name: str, title: str) -> None:
    path = out / f"{name}.svg"
    path.write_text(app.export_screenshot(title=title), encoding="utf-8")
    print(f"  {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")


def serving(app: SparkApp) -> bool:
    health = app.dashboard.health.get(CLUSTER) if app.dashboard else None
    return health is not None and health.serving and all(
        n.engine is None or n.engine.running for n in health.nodes)


def options(watch: bool) -> TuiOptions:
    return TuiOptions(cursor_blink=False, animations=False, refresh_seconds=1.0,
                      health_timeout=10, cycle_seconds=3600 if watch else 10.0)


async def operator_session(app: SparkApp, out: Path, size: tuple[int, int]) -> None:
    """Serve from the dashboard, then the shots an operator sees along the way."""
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: CLUSTER in app.dashboard.health, "the first health")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ServePlanScreen), "the plan")
        await pilot.click("#serve-ok")
        await wait_until(pilot, lambda: isinstance(app.screen, ProgressScreen), "progress")
        await wait_until(pilot, lambda: app.flows.run.result is not None, "the serve")
        if not app.flows.run.result.ok:
            raise SystemExit(f"screenshots: the serve failed: {app.flows.run.result}")
        await pilot.pause(0.3)
        save(app, out, "serve-progress", "sparktui: serve progress")
        await pilot.press("escape")
        await wait_until(pilot, lambda: serving(app), "the engine's first requests")
        await pilot.press("5")  # the logs of the serving cluster
        await wait_until(pilot, lambda: logged(app), "the engines' log lines")
        await pilot.press("1")
        await pilot.pause(0.3)
        save(app, out, "dashboard", "sparktui: dashboard")
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        await wait_until(pilot, lambda: screen.health is not None, "the fresh health check")
        await pilot.pause(0.3)
        save(app, out, "confirm-stop", "sparktui: stop confirmation")
        await pilot.press("escape")  # cancelled: the cluster keeps serving
        await pilot.pause(0.2)


def logged(app: SparkApp, count: int = 5) -> bool:
    """The logs pane holds the engines' lines (the follow that began before the serve
    reconnects at its next retry, so they come a few seconds after it)."""
    return len(app.screen.query_one(LogsPane).lines()) >= count


def engine_rates(app: SparkApp) -> bool:
    frame = app.dashboard.telemetry.get(CLUSTER)
    return bool(frame and frame.engine and frame.engine.gen_tps is not None
                and frame.engine.ttft_p95 is not None)


async def watch_session(app: SparkApp, out: Path, size: tuple[int, int]) -> None:
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: serving(app), "watch mode's health")
        await wait_until(pilot, lambda: engine_rates(app), "token rates (two samples)")
        await wait_until(pilot, lambda: logged(app), "the engines' log lines")
        save(app, out, "watch", "sparktui --watch")


def make(out: Path, size: tuple[int, int]) -> None:
    install("en")
    out.mkdir(parents=True, exist_ok=True)
    with TestCluster(2) as hosts, tempfile.TemporaryDirectory(prefix="sparktui-shots-") as tmp:
        root = Path(tmp)
        config_path = hosts.write_config(root / "config.toml", cluster_name=CLUSTER,
                                         prefill_known_hosts=True)
        config_path.write_text(TOP + config_path.read_text())
        recipes = root / "recipes"
        (recipes / RECIPE).mkdir(parents=True)
        (recipes / RECIPE / "recipe.toml").write_text(RECIPE_TOML)
        for node, running, waiting in ((hosts.nodes[0], 3, 1), (hosts.nodes[1], 0, 0)):
            node.set_engine(running=running, waiting=waiting, kv=0.42, prompt_tps=850,
                            gen_tps=61.5, rps=2, ttft=[[0.08, 0.9], [0.4, 0.1]],
                            tpot=[[0.016, 0.8], [0.03, 0.2]])
            node.set_gpu(**{"utilization.gpu": 87 if running else 64, "power.draw": 61,
                            "temperature.gpu": 58})
        loaded = load_config(config_path)
        app = create_app(loaded, recipes, ClusterEngine(loaded.config), False,
                         options=options(False))
        asyncio.run(operator_session(app, out, size))
        watch = create_app(loaded, recipes, ClusterEngine(loaded.config), True,
                           options=options(True))
        asyncio.run(watch_session(watch, out, size))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument("--size", default="160x46", help="terminal columns x rows")
    args = parser.parse_args(argv)
    cols, rows = (int(v) for v in args.size.lower().split("x"))
    start = time.monotonic()
    print(f"screenshots of the app on two simulated Sparks, {cols}x{rows}:")
    make(args.out, (cols, rows))
    print(f"done in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
