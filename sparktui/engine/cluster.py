"""The engine object the CLI and the dashboard hold: one transport per node, reused.

``ClusterEngine`` can change the cluster; ``--watch`` holds it behind the read-only face
``sparktui.engine.api.ReadOnlyView``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from pathlib import Path

from sparktui.config.models import Cluster, Config, Node
from sparktui.config.scripts import script_text
from sparktui.engine.api import ActionResult, ExecResult, ProgressSink, Step, StepState
from sparktui.engine.fit import fit_report
from sparktui.engine.health import node_health
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.hostkeys import known_hosts_path
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.remote.transport import NodeError, SshTransport, Transport
from sparktui.engine.router import RouterSaid, refresh_router, router_status
from sparktui.engine.router_key import RouterKeyError, client_key, kept_client_key
from sparktui.engine.router_names import holders, refusal, say_unread
from sparktui.engine.services.health import service_statuses
from sparktui.engine.status import (
    ClusterHealth,
    LogBatch,
    LogLine,
    RouterStatus,
    Workload,
    log_source,
)
from sparktui.engine.supervise import history, on_node
from sparktui.engine.supervise.disarm import disarm as supervise_disarm
from sparktui.engine.supervise.ending import Ending, ending
from sparktui.engine.supervise.events import SuperviseResult, SuperviseSink
from sparktui.engine.supervise.loop import Supervisor
from sparktui.engine.supervise.policy import Policy
from sparktui.engine.supervise.record import SupervisionStatus
from sparktui.engine.supervise.remote import new_mark, read_status
from sparktui.engine.telemetry.figures import DeepCheck, TelemetryFrame
from sparktui.engine.telemetry.sampler import ClusterTelemetry, deep_check, serving_head
from sparktui.engine.workloads.discover import discover
from sparktui.engine.workloads.inspect import Described
from sparktui.engine.workloads.inspect import inspect as inspect_container
from sparktui.engine.workloads.logs import merge, node_logs
from sparktui.engine.workloads.serve import Serve
from sparktui.engine.workloads.stop import Stop
from sparktui.i18n import _
from sparktui.plan.after_stop import HooksFor
from sparktui.plan.bench.aiperf import BenchSettings
from sparktui.plan.fit.calc import FitReport
from sparktui.plan.model import LaunchPlan
from sparktui.plan.router import RouterPlan, router_plan, served_names
from sparktui.said import Said, said

TELEMETRY_HEALTH_AGE = 15.0
"""Seconds: how old a health check ``top`` lets telemetry use before refreshing it."""


class ClusterEngine:
    def __init__(self, config: Config, known_hosts: Path | None = None):
        self.config = config
        self.known_hosts = known_hosts or known_hosts_path(config)
        self._transports: dict[tuple[str, int, bool], Transport] = {}
        self._last_health: dict[str, ClusterHealth] = {}  # telemetry reads workloads here
        self._telemetry: dict[str, ClusterTelemetry] = {}

    # -- plumbing ----------------------------------------------------------------
    def cluster(self, name: str) -> Cluster:
        return self.config.cluster(name)

    def transport(self, node: Node) -> Transport:
        key = (node.ssh_ip, node.ssh_port, node.local)
        if key not in self._transports:
            self._transports[key] = (LocalTransport(node, self.config) if node.local
                                     else SshTransport(node, self.config, self.known_hosts))
        return self._transports[key]

    def _nodes(self, cluster: str, node: str | None = None) -> list[Node]:
        nodes = self.cluster(cluster).ranked
        return [n for n in nodes if node is None or n.name == node]

    async def close(self) -> None:
        transports, self._transports = list(self._transports.values()), {}
        await asyncio.gather(*(t.close() for t in transports), return_exceptions=True)

    async def forget(self, node: Node) -> None:
        """Drop the node's connections (it went down; the next call connects afresh)."""
        transport = self._transports.pop((node.ssh_ip, node.ssh_port, node.local), None)
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()

    # -- reading -------------------------------------------------------------------
    async def health(self, cluster: str) -> ClusterHealth:
        """Every node, its workloads and the head's API; and supervision as the cluster's
        head (rank 0) keeps it, read at the same time."""
        timeout = self.config.health_timeout_seconds
        nodes = self._nodes(cluster)
        router = router_plan(self.config, self.cluster(cluster))
        results, supervision, router_now = await asyncio.gather(
            asyncio.gather(*(node_health(self.transport(n), timeout) for n in nodes)),
            self.supervision(cluster),
            self._router_status(cluster, router, timeout))
        services = []
        if any(w.is_service for r in results for w in r.workloads):
            transports = {n.name: self.transport(n) for n in nodes}
            services = await service_statuses(list(results), transports, timeout)
        health = ClusterHealth(cluster, list(results), time.time(), services, supervision,
                               router_now)
        self._last_health[cluster] = health
        return health

    async def telemetry(self, cluster: str) -> TelemetryFrame:
        """One telemetry sample of every node and the head (see engine.telemetry).

        Which node heads what comes from the last ``health()`` (the dashboard refreshes
        it; ``top`` calls it every ``TELEMETRY_HEALTH_AGE`` seconds). Before the first
        health check, only the nodes are sampled.
        """
        health = self._last_health.get(cluster)
        sampler = self._telemetry.get(cluster)
        if sampler is None:
            sampler = self._telemetry[cluster] = ClusterTelemetry(
                self.cluster(cluster), self.config, self.transport)
        return await sampler.sample(health)

    async def deep_check(self, cluster: str) -> DeepCheck | None:
        """A one-token completion on the serving head; None when nothing serves, not ok
        and ``unknown`` when no head answers and a node did not say what runs on it."""
        health = await self.health(cluster)
        head = serving_head(health)
        if head is None:
            return DeepCheck(False, error=health.unknown, unknown=True) if health.unknown \
                else None
        node = next(n for n in self._nodes(cluster) if n.name == head.node)
        row = next((r for r in health.nodes if r.node == head.node), None)
        eng = next((e for e in row.engines if e.recipe == head.recipe), None) if row else None
        models = eng.models if eng is not None else []
        return await deep_check(self.transport(node), node.ssh_ip, head.port or 0,
                                models[0] if models else None,
                                max(self.config.health_timeout_seconds, 30.0))

    async def workloads(self, cluster: str, node: str | None = None) -> list[Workload]:
        """What sparktui runs on the cluster's nodes; a node that cannot tell (SSH or its
        docker does not answer) raises NodeError."""
        found: list[Workload] = []
        for n in self._nodes(cluster, node):
            found += await discover(self.transport(n))
        return found

    async def inspect(self, cluster: str, node: str, name: str) -> Described:
        """Container ``name``'s ``docker inspect`` on ``node``, its secrets masked."""
        target = self._nodes(cluster, node)[0]
        return await inspect_container(self.transport(target),
                                       name, self.config.health_timeout_seconds)

    async def logs(self, cluster: str, *, node: str | None = None, recipe: str | None = None,
                   tail: int = 200, follow: bool = True) -> AsyncIterator[LogLine]:
        """Line by line; ``log_batches`` is the fast path for screens and files."""
        batches = self.log_batches(cluster, node=node, recipe=recipe, tail=tail, follow=follow)
        try:
            async for batch in batches:
                if batch.gap:
                    yield LogLine(batch.node, batch.lines[0] if batch.lines else "", gap=True)
                for text in () if batch.gap else batch.lines:
                    yield LogLine(batch.node, text)
        finally:
            await batches.aclose()

    async def log_batches(self, cluster: str, *, node: str | None = None,
                          recipe: str | None = None, tail: int = 200, follow: bool = True,
                          on_targets: Callable[[list[Workload]], None] | None = None,
                          on_health: Callable[[ClusterHealth], None] | None = None,
                          ) -> AsyncGenerator[LogBatch, None]:
        """``on_targets`` hears which workloads will be streamed (none: nothing runs, when
        every node said so: ``on_health`` hears the check they were found by)."""
        health = await self.health(cluster)
        if on_health is not None:
            on_health(health)
        wanted = [w for w in health.workloads
                  if (node is None or w.node == node) and (recipe is None or w.recipe == recipe)]
        if on_targets is not None:
            on_targets(wanted)
        for row in health.nodes:
            if node is not None and row.node != node:
                continue
            if not row.reachable:
                yield LogBatch(row.node, [f"{_('unreachable')}: {row.error}"], gap=True)
            elif row.docker_error is not None:
                yield LogBatch(row.node, [f"{_('docker unreachable')}: {row.docker_error}"],
                               gap=True)
        by_name = {n.name: n for n in self._nodes(cluster)}
        several = len({w.recipe for w in wanted}) > 1  # each line says whose it is
        streams = []
        for workload in wanted:
            target = by_name.get(workload.node)
            if target is None:
                continue
            transport = self.transport(target)
            streams.append(node_logs(transport, workload, tail=tail, follow=follow,
                                     is_running=_still_running(transport, workload),
                                     tag=log_source(workload.node, workload.recipe)
                                     if several else None))
        async for batch in merge(streams):
            yield batch

    # -- acting --------------------------------------------------------------------
    async def fit(self, plan: LaunchPlan) -> FitReport:
        """The model of ``plan`` against each of its nodes' memory (sparktui.plan.fit)."""
        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        transports = {n.name: self.transport(nodes[n.name]) for n in plan.nodes}
        return await fit_report(plan, transports, self.config.hf_cache_host,
                                self.config.command_timeout_seconds)

    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False, force: bool = False) -> ActionResult:
        """Preflight includes the memory fit: what does not fit is refused unless
        ``force``."""
        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        names = [n.name for n in plan.nodes]
        names += [i.node for s in plan.services for i in s.instances]
        transports = {name: self.transport(nodes[name]) for name in dict.fromkeys(names)}
        result = await Serve(plan, transports, progress, script_text,
                             hf_cache_host=self.config.hf_cache_host,
                             ready_timeout=self.config.ready_timeout_seconds,
                             keep_on_failure=keep_on_failure,
                             stop_grace=self.config.stop_grace_seconds,
                             fit=lambda: self.fit(plan), force=force,
                             model_free=lambda log: self._model_free(plan, log)).run()
        if not result.ok:
            return result
        await history.after_serve(self.transport(self._nodes(plan.cluster)[0]), plan.cluster,
                                  plan.recipe, self.config.health_timeout_seconds, progress)
        return await self.refresh_router(plan.cluster, progress, result,
                                         share_model=bool(plan.router and plan.router.share_model))

    async def stop(self, cluster: str, progress: ProgressSink, *, recipe: str | None = None,
                   hooks_for: HooksFor | None = None, disarm: bool = True) -> ActionResult:
        """Remove this cluster's workloads (of ``recipe`` only, if given), then restore
        their nodes (``sparktui.engine.workloads.stop``).

        First a mark on every node disarms whoever supervises them, wherever it runs;
        the on-node supervisor is removed after. ``disarm=False`` is the supervisor's
        own restart."""
        nodes = self._nodes(cluster)
        transports = {n.name: self.transport(n) for n in nodes}
        if disarm:
            await supervise_disarm(transports.values(), [transports[nodes[0].name]],
                                   new_mark("stop", cluster, recipe), progress,
                                   timeout=self.config.command_timeout_seconds,
                                   read_timeout=self.config.health_timeout_seconds)
        result = await Stop(cluster, transports, progress, script_text, recipe=recipe,
                            hooks_for=hooks_for, stop_grace=self.config.stop_grace_seconds).run()
        if disarm:
            await on_node.remove(transports.values(), cluster, recipe, progress)
        return await self.refresh_router(cluster, progress, result)

    # -- the router (sparktui.engine.router) ----------------------------------------------
    async def _router_status(self, cluster: str, router: RouterPlan | None,
                             timeout: float) -> RouterStatus | None:
        if router is None:
            return None
        node = next(n for n in self._nodes(cluster) if n.name == router.node)
        try:
            key = kept_client_key(self.cluster(cluster))
        except RouterKeyError:
            key = None  # asked without it: the router's answer says the rest
        return await router_status(self.transport(node), router, timeout, key)

    async def _model_free(self, plan: LaunchPlan, log: ProgressLog) -> Said | None:
        """None when no other recipe's head lists a name ``plan`` serves (or the cluster
        has no router, or ``--share-model``); else the refusal (sparktui.engine.router_names)."""
        if plan.router is None or plan.router.share_model or not plan.nodes:
            return None
        health = await self.health(plan.cluster)
        say_unread(health, plan.recipe, plan.router.node, log)
        found = holders(health, plan.recipe, served_names(plan))
        return refusal(found, plan.router.address) if found else None

    async def refresh_router(self, cluster: str, progress: ProgressSink,
                             result: ActionResult, *, share_model: bool = False
                             ) -> ActionResult:
        """The router made again from what serves now; its warnings join ``result``'s.
        ``share_model``: the serve it follows balances a name on purpose."""
        router = router_plan(self.config, self.cluster(cluster))
        if router is None:
            return result
        router = dataclasses.replace(router, share_model=share_model)
        log = ProgressLog(progress)
        try:
            key = client_key(self.cluster(cluster))
        except (RouterKeyError, OSError) as exc:
            log(Step.ROUTER, router.node, StepState.WARN,
                said(RouterSaid.NOT_UPDATED, error=str(exc)))
            return dataclasses.replace(result, steps=[*result.steps, *log.events])
        nodes = {n.name: n for n in self._nodes(cluster)}
        try:
            health = await self.health(cluster)
        except Exception as exc:  # the serve or stop stays as it went
            log(Step.ROUTER, router.node, StepState.WARN, str(exc) or type(exc).__name__)
            return dataclasses.replace(result, steps=[*result.steps, *log.events])
        await refresh_router(router, health, nodes, self.transport(nodes[router.node]), log,
                             self.config.command_timeout_seconds, key)
        return dataclasses.replace(result, steps=[*result.steps, *log.events])

    # -- supervision (sparktui.engine.supervise) ---------------------------------------
    async def supervise(self, plan: LaunchPlan, events: SuperviseSink, *,
                        interval: float | None = None, hooks_for: HooksFor | None = None,
                        mode: str = "foreground") -> SuperviseResult:
        """Keep ``plan``'s group alive until an operator stops it, its supervision is
        ended, the limits are reached, or the task is cancelled (the group stays)."""
        policy = Policy.from_config(self.config, interval)
        return await Supervisor(self, plan, policy, events, mode=mode,
                                hooks_for=hooks_for).run()

    async def supervision(self, cluster: str) -> SupervisionStatus:
        """Supervision of ``cluster`` as its head keeps it (``health`` has it too); only
        this cluster's: the head's home may keep another cluster's (issue 29)."""
        head = self.transport(self._nodes(cluster)[0])
        return (await read_status(head, self.config.health_timeout_seconds)).of(cluster)

    async def end_supervision(self, cluster: str, progress: ProgressSink, *,
                              recipe: str | None = None) -> Ending:
        """End whoever supervises ``cluster`` (``recipe`` only, if given), wherever it
        runs, leaving its group as it is; a give-up is made history; then a fresh read
        says whether the group runs."""
        transports = [self.transport(n) for n in self._nodes(cluster)]
        before = await self.supervision(cluster)
        disarmed = await supervise_disarm(transports, transports[:1],
                                          new_mark("end", cluster, recipe), progress,
                                          timeout=self.config.command_timeout_seconds,
                                          read_timeout=self.config.health_timeout_seconds)
        removed = await on_node.remove(transports, cluster, recipe, progress)
        return ending(cluster, recipe, before, disarmed, removed, await self.health(cluster))

    async def supervise_on_node(self, plan: LaunchPlan, recipe_text: str, progress: ProgressSink,
                                *, interval: float | None = None) -> on_node.Installed:
        """Run the supervisor in a container on ``plan``'s head (docs/supervise.md)."""
        return await on_node.install(self, plan, recipe_text, interval=interval,
                                     progress=progress)

    async def exec(self, cluster: str, command: str, *, node: str | None = None,
                   timeout: float | None = None) -> list[ExecResult]:
        async def one(n: Node) -> ExecResult:
            try:
                result = await self.transport(n).run(command, timeout=timeout)
            except NodeError as exc:
                return ExecResult(n.name, None, "", "", exc.text)
            return ExecResult(n.name, result.exit_code, result.stdout, result.stderr)

        return list(await asyncio.gather(*(one(n) for n in self._nodes(cluster, node))))

    # -- power (Home Assistant; see sparktui.engine.power.control) ---------------------------
    async def bench(self, plan: LaunchPlan, settings: BenchSettings,
                    progress: ProgressSink) -> ActionResult:
        from sparktui.engine.bench.action import bench_action  # the CLI's bench imports it too

        return await bench_action(self, plan, settings, progress)

    async def power_off(self, cluster: str, progress: ProgressSink) -> ActionResult:
        """Shut the nodes down over SSH, then turn off the entities of those that went."""
        from sparktui.engine.power.control import run_power
        from sparktui.plan.power import plan_off

        return await run_power(self, plan_off(self.config, cluster), progress)

    async def power_on(self, cluster: str, progress: ProgressSink) -> ActionResult:
        """Turn on the extras, then the nodes' entities; wait until the nodes answer SSH."""
        from sparktui.engine.power.control import run_power
        from sparktui.plan.power import plan_on

        return await run_power(self, plan_on(self.config, cluster), progress)

    async def power_switch(self, source: str, target: str,
                           progress: ProgressSink) -> ActionResult:
        """Power off what only ``source`` uses, then power on all of ``target``."""
        from sparktui.engine.power.control import run_power
        from sparktui.plan.power import plan_switch

        return await run_power(self, plan_switch(self.config, source, target), progress)


def _still_running(transport: Transport, workload: Workload):
    async def check() -> bool:
        try:
            found = await discover(transport)
        except NodeError:
            return True  # unreachable: keep trying, the gap marker shows it
        return any(w.name == workload.name and w.running for w in found)
    return check


__all__ = ["ClusterEngine"]
