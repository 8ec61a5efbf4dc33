"""The typed null engine every test double of the engine subclasses.

``NullEngine`` has every method of ``ClusterControl`` (so of ``ClusterView``), with the
protocol's signatures (mypy checks this file: pyproject's ``[tool.mypy] files``), and
answers each with :class:`NotSupported`, the way a real read or action fails. A double
overrides what its test needs; the dashboard never has to ask a double which methods it
has, and a method the double forgot fails loudly instead of being skipped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING

from sparktui.engine.api import (
    ActionResult,
    Benched,
    BenchHeard,
    Check,
    ClusterControl,
    ClusterHealth,
    DeepCheck,
    Described,
    Ending,
    ExecResult,
    Installed,
    LogBatch,
    LogLine,
    ProgressSink,
    Restarted,
    SuperviseResult,
    SuperviseSink,
    TelemetryFrame,
    TransferSink,
    Workload,
)

if TYPE_CHECKING:
    from sparktui.engine.pull.transfer import PullParts, TransferSink
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.anywhere import Replan
    from sparktui.plan.bench.aiperf import BenchSettings
    from sparktui.plan.fit.calc import FitReport
    from sparktui.plan.image_pin import DigestReport
    from sparktui.plan.model import LaunchPlan
    from sparktui.plan.power import PowerPlan


class NotSupported(Exception):
    """What a ``NullEngine`` answers: this double does not do ``what``."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(f"not supported by this test engine: {what}")


class NullEngine:
    """Every read and action of the engine, each answered "not supported"; closing it is
    nothing to do."""

    # -- ClusterView --------------------------------------------------------------------

    async def health(self, cluster: str) -> ClusterHealth:
        raise NotSupported("health")

    def logs(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
             tail: int = 200, follow: bool = True) -> AsyncIterator[LogLine]:
        raise NotSupported("logs")

    def log_batches(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
                    tail: int = 200, follow: bool = True,
                    on_targets: Callable[[list[Workload]], None] | None = None,
                    on_health: Callable[[ClusterHealth], None] | None = None,
                    ) -> AsyncIterator[LogBatch]:
        raise NotSupported("log_batches")

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        raise NotSupported("telemetry")

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        raise NotSupported("deep_check")

    async def inspect(self, cluster: str, node: str, name: str) -> Described:
        raise NotSupported("inspect")

    async def workloads(self, cluster: str, node: str | None = None) -> list[Workload]:
        raise NotSupported("workloads")

    async def sessions(self, cluster: str, node: str) -> list[Workload]:
        raise NotSupported("sessions")

    async def fit(self, plan: LaunchPlan) -> FitReport:
        raise NotSupported("fit")

    async def image_digests(self, plan: LaunchPlan) -> DigestReport:
        raise NotSupported("image_digests")

    async def doctor(self, cluster: str, images: Sequence[str] = ()) -> list[Check]:
        raise NotSupported("doctor")

    async def close(self) -> None:
        return None

    # -- ClusterControl -----------------------------------------------------------------

    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False, force: bool = False,
                    replan: Replan | None = None) -> ActionResult:
        raise NotSupported("serve")

    async def stop(self, cluster: str, progress: ProgressSink, *, recipe: str | None = None,
                   hooks_for: HooksFor | None = None) -> ActionResult:
        raise NotSupported("stop")

    async def exec(self, cluster: str, command: str, *, node: str | None = None,
                   timeout: float | None = None) -> list[ExecResult]:
        raise NotSupported("exec")

    async def supervise_on_node(self, plan: LaunchPlan, recipe_text: str,
                                progress: ProgressSink, *,
                                interval: float | None = None) -> Installed:
        raise NotSupported("supervise_on_node")

    async def end_supervision(self, cluster: str, progress: ProgressSink, *,
                              recipe: str | None = None) -> Ending:
        raise NotSupported("end_supervision")

    async def power_off(self, cluster: str, progress: ProgressSink) -> ActionResult:
        raise NotSupported("power_off")

    async def pull_model(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        raise NotSupported("pull_model")

    async def bench(self, plan: LaunchPlan, settings: BenchSettings,
                    progress: ProgressSink) -> ActionResult:
        raise NotSupported("bench")

    async def pull(self, plan: LaunchPlan, parts: PullParts, progress: ProgressSink,
                   transfers: TransferSink) -> ActionResult:
        raise NotSupported("pull")

    async def power_on(self, cluster: str, progress: ProgressSink) -> ActionResult:
        raise NotSupported("power_on")

    async def power_switch(self, source: str, target: str,
                           progress: ProgressSink) -> ActionResult:
        raise NotSupported("power_switch")


    async def power(self, plan: PowerPlan, progress: ProgressSink) -> ActionResult:
        raise NotSupported("power")

    async def restart(self, plan: LaunchPlan, progress: ProgressSink, *,
                      hooks_for: HooksFor | None = None,
                      replan: Replan | None = None) -> Restarted:
        raise NotSupported("restart")

    async def supervise(self, plan: LaunchPlan, events: SuperviseSink, *,
                        interval: float | None = None, hooks_for: HooksFor | None = None,
                        mode: str = "foreground", replan: Replan | None = None
                        ) -> SuperviseResult:
        raise NotSupported("supervise")

    async def bench_recipe(self, cluster: str, recipe: str | None, settings: BenchSettings,
                           tool: str, heard: BenchHeard, *, via: str = "auto",
                           plan_of: Callable[[str], LaunchPlan | None] | None = None
                           ) -> Benched:
        raise NotSupported("bench_recipe")

    async def pull_image(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        raise NotSupported("pull_image")

    def attach_argv(self, cluster: str, workload: Workload) -> list[str]:
        raise NotSupported("attach_argv")

    def shell_argv(self, cluster: str, workload: Workload, command: Sequence[str] = (), *,
                   tty: bool = True) -> list[str]:
        raise NotSupported("shell_argv")


def as_control(engine: NullEngine) -> ClusterControl:
    """mypy's proof that a ``NullEngine`` (and so every double) is a ``ClusterControl``."""
    return engine
