"""Deterministic dashboards: the example config, the shipped recipes, a fixed clock."""

from __future__ import annotations

from pathlib import Path

from null_engine import NullEngine
from polling import eventually_async, pausing

from sparktui.config.loaded import LoadedConfig
from sparktui.config.loader import load_config
from sparktui.engine.status import (
    ClusterHealth,
    EngineStatus,
    LogLine,
    NodeHealth,
    Workload,
)
from sparktui.engine.status import LogBatch as EngineBatch
from sparktui.errors import SparkError
from sparktui.tui.app import SparkApp, TuiOptions, create_app
from sparktui.tui.messages import HealthUpdated

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = REPO / "examples" / "config.toml"
RECIPES = REPO / "recipes"
NOW = 1_750_000_000.0  # 2025-06-15T15:06:40Z


def fixed_clock() -> float:
    return NOW


def make_app(*, watch: bool = False, config: LoadedConfig | SparkError | None = None,
             recipes_dir: Path = RECIPES, engine=None, **options) -> SparkApp:
    loaded = load_config(EXAMPLE_CONFIG) if config is None else config
    opts = TuiOptions(**{"clock": fixed_clock, "cursor_blink": False, "animations": False,
                         **options})
    return create_app(loaded, recipes_dir, engine, watch, options=opts)


def serving_health(cluster: str = "2nodes") -> ClusterHealth:
    """spark1 heads qwen3-235b-2node (ready, 2 running, 1 waiting), spark2 is its worker."""
    def work(node: str, rank: int, role: str) -> Workload:
        return Workload(name="sparktui-qwen3-235b-2node", recipe="qwen3-235b-2node",
                        cluster=cluster, node=node, rank=rank, role=role, runtime="docker",
                        state="running", status="Up 2 hours", port=30000,
                        image="nvcr.io/nvidia/vllm:25.10-py3",
                        started_at="2025-06-15T12:51:40.123456789Z")
    engine = EngineStatus(health_ok=True, ready=True, models=["qwen3-235b"], running=2,
                          waiting=1, kv_cache=0.31)
    return ClusterHealth(cluster=cluster, checked_at=NOW - 4, nodes=[
        NodeHealth("spark1", True, latency_ms=1.2, workloads=[work("spark1", 0, "head")],
                   engine=engine),
        NodeHealth("spark2", True, latency_ms=1.4, workloads=[work("spark2", 1, "worker")]),
    ])


def split_health(cluster: str = "2nodes") -> ClusterHealth:
    """spark1 up with an exited container, spark2 unreachable."""
    exited = Workload(name="sparktui-qwen3-235b-2node", recipe="qwen3-235b-2node",
                      cluster=cluster, node="spark1", rank=0, role="head", runtime="docker",
                      state="exited", status="Exited (137) 5 minutes ago", exit_code=137)
    return ClusterHealth(cluster=cluster, checked_at=NOW - 4, nodes=[
        NodeHealth("spark1", True, latency_ms=1.0, workloads=[exited]),
        NodeHealth("spark2", False, error="ssh: connection refused"),
    ])


def two_node_lines(count: int = 12) -> list[LogLine]:
    lines = []
    for i in range(count):
        node = "spark1" if i % 2 == 0 else "spark2"
        lines.append(LogLine(node, f"INFO 06-15 15:06:{i:02d} [loader.py:{100 + i}] "
                                   f"loading safetensors shard {i + 1}/{count}"))
    lines.insert(5, LogLine("spark2", "\x1b[1;33mWARNING\x1b[0m NCCL_IB_GID_INDEX is set"))
    lines.append(LogLine("spark1", "", gap=True))
    lines.append(LogLine("spark1", "INFO Application startup complete."))
    return lines


BROKEN_RECIPE = """\
description = "a recipe with a typo in its engine"
engine = "tensorrt"
docker_image = "nvcr.io/nvidia/vllm:25.10-py3"
model = "nvidia/Qwen3-235B-A22B-FP4"
"""


class RecordingEngine(NullEngine):
    """A stand-in engine that records every call. Only the watch-mode and worker tests use
    it, to prove which engine methods the dashboard calls (and that it never overlaps);
    what it does not override answers "not supported" (``NullEngine``)."""

    def __init__(self, health_delay: float = 0.0) -> None:
        super().__init__()
        self.calls: list[tuple[str, ...]] = []
        self.health_delay = health_delay
        self.active = 0
        self.max_active = 0

    async def health(self, cluster: str) -> ClusterHealth:
        import asyncio

        self.calls.append(("health", cluster))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            await asyncio.sleep(self.health_delay)
        finally:
            self.active -= 1
        return serving_health(cluster) if cluster == "2nodes" else ClusterHealth(cluster, [], NOW)

    def log_batches(self, cluster: str, *, node=None, recipe=None, tail=200, follow=True,
                    on_targets=None, on_health=None):
        import asyncio

        self.calls.append(("logs", cluster))

        async def stream():
            yield EngineBatch("spark1", [f"hello from {cluster}"])
            yield EngineBatch("spark2", [f"hello again from {cluster}"])
            await asyncio.Event().wait()

        return stream()

    async def close(self) -> None:
        self.calls.append(("close",))

    async def serve(self, plan, progress, *, keep_on_failure=False, force=False, replan=None):
        from sparktui.engine.api import ActionResult

        self.calls.append(("serve",))
        return ActionResult(True)

    async def stop(self, cluster, progress, *, recipe=None, hooks_for=None):
        from sparktui.engine.api import ActionResult

        self.calls.append(("stop",))
        return ActionResult(True)

    async def exec(self, cluster, command, *, node=None, timeout=None):
        self.calls.append(("exec",))
        return []

    @property
    def mutating_calls(self) -> list[tuple[str, ...]]:
        return [c for c in self.calls if c[0] in ("serve", "stop", "exec")]


async def click(pilot, selector: str) -> None:
    """Click ``selector`` on the screen in front once it is laid out there: a busy
    machine can run the click before a just-pushed dialog has its size, and the click
    then lands beside the button. (``Pilot.click``'s answer is not asserted: a button
    that closes its dialog is no longer under the pointer when it looks.)"""

    def shown() -> bool:
        found = pilot.app.screen.query(selector)
        if not found:
            return False
        widget = found.first()
        region = widget.region
        return region.area > 0 and pilot.app.screen.get_widget_at(*region.offset)[0] is widget

    await eventually_async(shown, look=pausing(pilot))
    await pilot.click(selector)


async def palette_search(pilot, query: str) -> None:
    """Open the command palette, type ``query`` and wait until its search for exactly
    that text has finished. Keys typed before the palette holds the focus would reach
    the dashboard, and a list read before the search ends is an older search's."""
    from textual.command import CommandInput, CommandPalette
    from textual.worker import WorkerState

    await pilot.press("ctrl+p")
    await eventually_async(lambda: isinstance(pilot.app.screen, CommandPalette)
                           and isinstance(pilot.app.focused, CommandInput), look=pausing(pilot))
    palette = pilot.app.screen
    await pilot.press(*query)

    def settled() -> bool:
        searching = [w for w in pilot.app.workers if w.node is palette
                     and w.group == CommandPalette._GATHER_COMMANDS_GROUP
                     and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        return palette.query_one(CommandInput).value == query and not searching

    await eventually_async(settled, look=pausing(pilot))
    await pilot.pause()


async def open_and_type(pilot, key: str, *keys: str) -> None:
    """Press ``key`` (which opens a box: a filter, a search) and, once that box has the
    focus, ``keys``: typed sooner, they would reach the pane as its own keys."""
    from textual.widgets import Input

    await pilot.press(key)
    await eventually_async(lambda: isinstance(pilot.app.focused, Input), look=pausing(pilot))
    await pilot.press(*keys)


def posting(*healths: ClusterHealth):
    """A snapshot's ``run_before``: once the dashboard is up, each health in turn as a
    health check would post it."""
    async def run_before(pilot) -> None:
        dashboard = pilot.app.dashboard
        await eventually_async(lambda: dashboard.is_mounted, look=pausing(pilot))
        for health in healths:
            dashboard.post_message(HealthUpdated(health))
            await pilot.pause(0.2)
    return run_before
