"""The engine's two faces are protocols the dashboard relies on, not objects it probes.

``ClusterView`` declares every read the dashboard makes, ``ReadOnlyView`` has exactly
those reads, and the test doubles' base ``NullEngine`` has every member of
``ClusterControl`` with the protocol's signature. No module of the dashboard asks an
engine which methods it has.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path
from typing import Protocol

from null_engine import NotSupported, NullEngine
from plan_support import REPO

from sparktui.engine.api import ClusterControl, ClusterView, ReadOnlyView
from sparktui.engine.telemetry.figures import DeepCheck, TelemetryFrame
from sparktui.engine.workloads.inspect import Described

READS = {"health", "logs", "log_batches", "telemetry", "deep_check", "inspect", "workloads",
         "sessions", "fit", "image_digests", "doctor", "close"}


def members(protocol: type) -> set[str]:
    """The public members a protocol declares, its base protocols' included."""
    return {name for cls in protocol.__mro__
            if cls is not Protocol and getattr(cls, "_is_protocol", False)
            for name in vars(cls) if not name.startswith("_")}


def test_the_view_declares_every_read_the_dashboard_makes() -> None:
    assert members(ClusterView) == READS
    workers = REPO / "sparktui" / "tui" / "workers.py"
    called = {node.attr for node in ast.walk(ast.parse(workers.read_text(encoding="utf-8")))
              if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "engine"}
    assert called and called <= READS, called - READS


def test_the_read_only_view_has_every_read_and_no_action() -> None:
    public = {name for name in vars(ReadOnlyView) if not name.startswith("_")}
    assert public == READS
    assert members(ClusterControl) - READS >= {"serve", "stop", "exec", "power_off"}
    assert not public & (members(ClusterControl) - READS)


def test_the_null_engine_has_every_member_with_the_protocols_signature() -> None:
    for name in members(ClusterControl):
        mine = getattr(NullEngine, name)
        assert name in vars(NullEngine), f"NullEngine inherits {name}"
        declared = next(vars(c)[name] for c in ClusterControl.__mro__ if name in vars(c))
        assert inspect.signature(mine) == inspect.signature(declared), name
        assert inspect.iscoroutinefunction(mine) == inspect.iscoroutinefunction(declared)


class Reads(NullEngine):
    """Answers the reads the view passes on, and records their arguments."""

    def __init__(self) -> None:
        self.asked: list[tuple] = []

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        self.asked.append(("telemetry", cluster))
        return TelemetryFrame(cluster, 1.0, 2.0, [])

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        self.asked.append(("deep_check", cluster))
        return DeepCheck(True, latency_ms=3.0)


def test_the_view_passes_each_read_on_and_the_engines_refusal_back() -> None:
    engine = Reads()
    view = ReadOnlyView(engine)

    async def go() -> tuple:
        frame = await view.telemetry("c")
        check = await view.deep_check("c")
        try:
            await view.inspect("c", "node1", "sparktui-x")
        except NotSupported as exc:
            refused: Described | NotSupported = exc
        return frame, check, refused

    frame, check, refused = asyncio.run(go())
    assert frame.cluster == "c" and check == DeepCheck(True, latency_ms=3.0)
    assert isinstance(refused, NotSupported) and refused.what == "inspect"
    assert engine.asked == [("telemetry", "c"), ("deep_check", "c")]


def _probes(path: Path) -> list[str]:
    """``getattr``/``hasattr`` calls on something named an engine or a control."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            subject = ast.unparse(node.args[0]).lower()
            if "engine" in subject or "control" in subject or "built" in subject:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_asks_an_engine_which_methods_it_has() -> None:
    sources = [REPO / "sparktui" / "engine" / "api.py",
               *sorted((REPO / "sparktui" / "tui").rglob("*.py"))]
    assert [probe for path in sources for probe in _probes(path)] == []
