"""The two faces of the engine that the CLI and the dashboard hold.

``ClusterView`` only reads (health, logs, telemetry, the deep check, a container's
inspect). ``ClusterControl`` adds the actions that change a cluster. Both are protocols
every engine implements whole; nobody asks an engine which methods it has. ``--watch``
is handed a view: the mutating methods are not hidden there, they do not exist on the
object.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

# The step codes sit below every layer (sparktui.steps) so that sparktui.labels can name them
# without importing the engine; the front-ends take them from here with the rest.
from sparktui.said import Text, text_json
from sparktui.steps import Outcome, Step, StepState

if TYPE_CHECKING:  # names for the protocols only; the dashboard imports this before its first frame
    from sparktui.engine.status import ClusterHealth, LogBatch, LogLine
    from sparktui.engine.supervise.ending import Ending
    from sparktui.engine.supervise.on_node import Installed
    from sparktui.engine.telemetry.figures import DeepCheck, TelemetryFrame
    from sparktui.engine.workloads.inspect import Described
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.bench.aiperf import BenchSettings
    from sparktui.plan.model import LaunchPlan


@dataclass(frozen=True)
class Progress:
    """One step of a long action, for a progress display (CLI line or TUI row)."""

    step: Step
    node: str | None
    state: StepState
    detail: Text = ""  # a value (an image ID, a container) or a sentence as data
    entity: str | None = None  # power steps: the Home Assistant entity switched

    def as_json(self) -> dict[str, Any]:
        """The same in every language: codes, values, and a sentence as its code."""
        return {"step": self.step.value, "node": self.node, "state": self.state.value,
                "detail": text_json(self.detail) if self.detail else None,
                **({"entity": self.entity} if self.entity else {})}


ProgressSink = Callable[[Progress], None]


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    failed_node: str | None = None
    failed_step: str | None = None
    detail: Text = ""
    steps: list[Progress] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    exit_code: int | None = None  # serve of terminal services: their worst exit code

    @property
    def warnings(self) -> list[Progress]:
        """Steps that failed without failing the action (a hook with ``on_failure = "warn"``):
        the end of the action says them, they never pass as done."""
        return [e for e in self.steps if e.state == StepState.WARN]

    @property
    def done(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.done]

    @property
    def not_done(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.done]


@dataclass(frozen=True)
class ExecResult:
    node: str
    exit_code: int | None  # None: the node could not run it (unreachable, timeout)
    stdout: str
    stderr: str
    error: str | None = None


class ClusterView(Protocol):
    """Every read the dashboard makes of a cluster, and nothing that changes one.

    An engine has all of them; one that cannot answer a read raises, as any failed read
    does (the dashboard says so), and never lacks the method."""

    async def health(self, cluster: str) -> ClusterHealth: ...

    def logs(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
             tail: int = 200, follow: bool = True) -> AsyncIterator[LogLine]: ...

    def log_batches(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
                    tail: int = 200, follow: bool = True) -> AsyncIterator[LogBatch]: ...

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        """Live figures of every node and engine (one sample)."""
        ...

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        """One completion of one token on the serving head (None: nothing serves); it
        changes nothing on the cluster."""
        ...

    async def inspect(self, cluster: str, node: str, name: str) -> Described:
        """A container's ``docker inspect``, its secrets masked."""
        ...

    async def close(self) -> None: ...


class ClusterControl(ClusterView, Protocol):
    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False, force: bool = False) -> ActionResult: ...

    async def stop(self, cluster: str, progress: ProgressSink, *, recipe: str | None = None,
                   hooks_for: HooksFor | None = None) -> ActionResult: ...

    async def exec(self, cluster: str, command: str, *, node: str | None = None,
                   timeout: float | None = None) -> list[ExecResult]: ...

    async def supervise_on_node(self, plan: LaunchPlan, recipe_text: str,
                                progress: ProgressSink, *,
                                interval: float | None = None) -> Installed:
        """Start supervising ``plan``'s group from a container on its head (it outlives
        whoever started it); ``health(cluster).supervision`` shows it."""
        ...

    async def end_supervision(self, cluster: str, progress: ProgressSink, *,
                              recipe: str | None = None) -> Ending:
        """End the cluster's supervision wherever it runs, leaving its group as it is:
        what it ended and cleared, the nodes that could not take the disarm mark, and
        whether the group runs, read afresh after."""
        ...

    async def power_off(self, cluster: str, progress: ProgressSink) -> ActionResult: ...

    async def bench(self, plan: LaunchPlan, settings: BenchSettings,
                    progress: ProgressSink) -> ActionResult:
        """Benchmark the serving head of ``plan``'s recipe; the run kept (docs/bench.md)."""
        ...

    async def power_on(self, cluster: str, progress: ProgressSink) -> ActionResult: ...

    async def power_switch(self, source: str, target: str,
                           progress: ProgressSink) -> ActionResult: ...


class ReadOnlyView:
    """What ``--watch`` holds: every read of an engine (``ClusterView``), and no way to
    change it. The mutating methods are not disabled here, they do not exist.
    """

    def __init__(self, engine: ClusterView):
        self._engine = engine

    async def health(self, cluster: str) -> ClusterHealth:
        return await self._engine.health(cluster)

    def logs(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
             tail: int = 200, follow: bool = True) -> AsyncIterator[LogLine]:
        return self._engine.logs(cluster, node=node, recipe=recipe, tail=tail, follow=follow)

    def log_batches(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
                    tail: int = 200, follow: bool = True) -> AsyncIterator[LogBatch]:
        return self._engine.log_batches(cluster, node=node, recipe=recipe, tail=tail,
                                        follow=follow)

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        return await self._engine.telemetry(cluster)

    async def inspect(self, cluster: str, node: str, name: str) -> Described:
        return await self._engine.inspect(cluster, node, name)

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        return await self._engine.deep_check(cluster)

    async def close(self) -> None:
        await self._engine.close()

