"""The engine's two faces, as protocols: ``ClusterView`` reads, ``ClusterControl`` also
changes a cluster; ``ReadOnlyView`` is a view and nothing more (``--watch``).

The front-ends take them from ``sparktui.engine.api``; every engine implements them
whole (``ClusterEngine``, the test doubles' ``NullEngine``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # names for the protocols only; the dashboard imports this before its first frame
    from sparktui.engine.bench.kept import Benched, BenchHeard
    from sparktui.engine.doctor_check import Check
    from sparktui.engine.pull.transfer import PullParts, TransferSink
    from sparktui.engine.results import ActionResult, ExecResult, ProgressSink
    from sparktui.engine.status import ClusterHealth, LogBatch, LogLine, Workload
    from sparktui.engine.supervise.ending import Ending
    from sparktui.engine.supervise.events import SuperviseResult, SuperviseSink
    from sparktui.engine.supervise.outcomes import Installed
    from sparktui.engine.telemetry.figures import DeepCheck, TelemetryFrame
    from sparktui.engine.workloads.described import Described
    from sparktui.engine.workloads.restart import Restarted
    from sparktui.plan.after_stop import HooksFor
    from sparktui.plan.anywhere import Replan
    from sparktui.plan.bench.aiperf import BenchSettings
    from sparktui.plan.fit.calc import FitReport
    from sparktui.plan.image_pin import DigestReport
    from sparktui.plan.model import LaunchPlan
    from sparktui.plan.power import PowerPlan


class ClusterView(Protocol):
    """Every read of a cluster the front-ends make, and nothing that changes one.

    An engine has all of them; one that cannot answer a read raises, as any failed read
    does (the dashboard says so), and never lacks the method."""

    async def health(self, cluster: str) -> ClusterHealth: ...

    def logs(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
             tail: int = 200, follow: bool = True) -> AsyncIterator[LogLine]: ...

    def log_batches(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
                    tail: int = 200, follow: bool = True,
                    on_targets: Callable[[list[Workload]], None] | None = None,
                    on_health: Callable[[ClusterHealth], None] | None = None,
                    ) -> AsyncIterator[LogBatch]:
        """``on_targets`` hears which workloads will be streamed (none: nothing runs, when
        every node said so: ``on_health`` hears the check they were found by)."""
        ...

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

    async def workloads(self, cluster: str, node: str | None = None) -> list[Workload]:
        """What sparktui runs on the cluster's nodes (``node`` only, if given); NodeError
        when a node cannot tell (SSH or its docker does not answer)."""
        ...

    async def sessions(self, cluster: str, node: str) -> list[Workload]:
        """The node's workloads a terminal can attach to, this cluster's first
        (``attachable``); NodeError when the node does not answer."""
        ...

    async def fit(self, plan: LaunchPlan) -> FitReport:
        """The model of ``plan`` against each of its nodes' memory."""
        ...

    async def image_digests(self, plan: LaunchPlan) -> DigestReport:
        """The digest of the plan's image on each of its nodes (``sparktui pin``)."""
        ...

    async def doctor(self, cluster: str, images: Sequence[str] = ()) -> list[Check]:
        """Every node's checks, the images' (``images``; none: those of what runs) and
        each serving head's engine metrics."""
        ...

    async def close(self) -> None: ...


class ClusterControl(ClusterView, Protocol):
    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False, force: bool = False,
                    replan: Replan | None = None) -> ActionResult:
        """``replan``: ``plan.anywhere.replan_for``'s, for a Slurm cluster's any N nodes."""
        ...

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

    async def pull_image(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        """The plan's nodes that lack its image get it: from a node that has it, else
        pulled once from the registry by the head, then copied node to node over the
        fabric (docs/pull.md); the same image ID everywhere at the end."""
        ...

    async def pull_model(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        """``plan``'s model into every engine node's HF cache: downloaded once from the
        Hub, copied node to node over the fabric, each copy hashed (docs/pull.md)."""
        ...

    async def bench(self, plan: LaunchPlan, settings: BenchSettings,
                    progress: ProgressSink) -> ActionResult:
        """Benchmark the serving head of ``plan``'s recipe; the run kept (docs/bench.md)."""
        ...

    async def pull(self, plan: LaunchPlan, parts: PullParts, progress: ProgressSink,
                   transfers: TransferSink) -> ActionResult:
        """The recipe's image, then its model, onto every node lacking them: fetched once,
        copied node to node (docs/pull.md)."""
        ...

    async def power_on(self, cluster: str, progress: ProgressSink) -> ActionResult: ...

    async def power_switch(self, source: str, target: str,
                           progress: ProgressSink) -> ActionResult: ...

    async def power(self, plan: PowerPlan, progress: ProgressSink) -> ActionResult:
        """Run a power plan the front-end showed and confirmed (``sparktui.plan.power``)."""
        ...

    async def restart(self, plan: LaunchPlan, progress: ProgressSink, *,
                      hooks_for: HooksFor | None = None,
                      replan: Replan | None = None) -> Restarted:
        """Stop ``plan``'s recipe, then serve ``plan`` again (nothing after a failed stop)."""
        ...

    async def supervise(self, plan: LaunchPlan, events: SuperviseSink, *,
                        interval: float | None = None, hooks_for: HooksFor | None = None,
                        mode: str = "foreground", replan: Replan | None = None
                        ) -> SuperviseResult:
        """Keep ``plan``'s group alive from here until an operator stops it, its
        supervision is ended, the limits are reached, or the task is cancelled."""
        ...

    async def bench_recipe(self, cluster: str, recipe: str | None, settings: BenchSettings,
                           tool: str, heard: BenchHeard, *, via: str = "auto",
                           plan_of: Callable[[str], LaunchPlan | None] | None = None
                           ) -> Benched:
        """Load on the head of ``recipe`` (None: the one that serves) with ``tool``, the
        run kept; what it says as it goes to ``heard``."""
        ...

    def attach_argv(self, cluster: str, workload: Workload) -> list[str]:
        """The argv that hands this terminal to ``workload``'s tmux session (``attachable``
        picks it), on its node over SSH or here."""
        ...

    def shell_argv(self, cluster: str, workload: Workload, command: Sequence[str] = (), *,
                   tty: bool = True) -> list[str]:
        """The argv of a shell (or ``command``) in ``workload``'s container (``containers``
        picks it); without a terminal (``tty=False``) its input only."""
        ...


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
                    tail: int = 200, follow: bool = True,
                    on_targets: Callable[[list[Workload]], None] | None = None,
                    on_health: Callable[[ClusterHealth], None] | None = None,
                    ) -> AsyncIterator[LogBatch]:
        return self._engine.log_batches(cluster, node=node, recipe=recipe, tail=tail,
                                        follow=follow, on_targets=on_targets,
                                        on_health=on_health)

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        return await self._engine.telemetry(cluster)

    async def inspect(self, cluster: str, node: str, name: str) -> Described:
        return await self._engine.inspect(cluster, node, name)

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        return await self._engine.deep_check(cluster)

    async def workloads(self, cluster: str, node: str | None = None) -> list[Workload]:
        return await self._engine.workloads(cluster, node)

    async def sessions(self, cluster: str, node: str) -> list[Workload]:
        return await self._engine.sessions(cluster, node)

    async def fit(self, plan: LaunchPlan) -> FitReport:
        return await self._engine.fit(plan)

    async def image_digests(self, plan: LaunchPlan) -> DigestReport:
        return await self._engine.image_digests(plan)

    async def doctor(self, cluster: str, images: Sequence[str] = ()) -> list[Check]:
        return await self._engine.doctor(cluster, images)

    async def close(self) -> None:
        await self._engine.close()

