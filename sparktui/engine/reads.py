"""The reading half of the engine: one transport per node, reused, and every read of a
cluster (``sparktui.engine.api.ClusterView``). ``ClusterEngine`` (``engine.cluster``) adds
the actions; ``--watch`` holds only these reads (``ReadOnlyView``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from pathlib import Path

from sparktui.config.models import Cluster, Config, Node
from sparktui.engine.doctor import cluster_doctor
from sparktui.engine.doctor_check import Check
from sparktui.engine.fit import fit_report
from sparktui.engine.health import node_health
from sparktui.engine.image_pins import image_digests
from sparktui.engine.remote.hostkeys import known_hosts_path
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.remote.node_error import Reason
from sparktui.engine.remote.transport import NodeError, SshTransport, Transport
from sparktui.engine.router import router_status
from sparktui.engine.router_key import RouterKeyError, kept_client_key
from sparktui.engine.services.health import service_statuses
from sparktui.engine.slurm.doctor import slurm_checks
from sparktui.engine.slurm.jobs import SlurmStatus
from sparktui.engine.slurm.site import SlurmSite, slurm_status, submit_node
from sparktui.engine.status import (
    ClusterHealth,
    LogBatch,
    LogLine,
    NodeHealth,
    RouterStatus,
    Workload,
    log_source,
)
from sparktui.engine.supervise.record import SupervisionStatus
from sparktui.engine.supervise.remote import read_status
from sparktui.engine.telemetry.figures import DeepCheck, TelemetryFrame
from sparktui.engine.telemetry.sampler import ClusterTelemetry, deep_check, serving_head
from sparktui.engine.workloads.described import Described
from sparktui.engine.workloads.discover import discover, list_node
from sparktui.engine.workloads.inspect import inspect as inspect_container
from sparktui.engine.workloads.logs import merge, node_logs
from sparktui.engine.workloads.pick import attachable
from sparktui.plan.build import slurm_plan
from sparktui.plan.fit.calc import FitReport
from sparktui.plan.image_pin import DigestReport
from sparktui.plan.model import LaunchPlan
from sparktui.plan.router import RouterPlan, router_plan
from sparktui.said import Layout, Said, joined, said


class Connections:
    """The config and one transport per node, opened on first use and reused."""

    def __init__(self, config: Config, known_hosts: Path | None = None):
        self.config = config
        self.known_hosts = known_hosts or known_hosts_path(config)
        self._transports: dict[tuple[str, int, bool], Transport] = {}

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


class ClusterReads(Connections):
    """Every read of a cluster; nothing here changes one."""

    def __init__(self, config: Config, known_hosts: Path | None = None):
        super().__init__(config, known_hosts)
        self._last_health: dict[str, ClusterHealth] = {}  # telemetry reads workloads here
        self._telemetry: dict[str, ClusterTelemetry] = {}

    def slurm_site(self, cluster: str) -> SlurmSite:
        """The Slurm of a cluster with ``[clusters.slurm]``, reached on its submit host."""
        slurm = slurm_plan(self.cluster(cluster))
        assert slurm is not None
        return SlurmSite(self.transport(submit_node(slurm, self._nodes(cluster))), slurm)

    async def _slurm_status(self, cluster: str) -> SlurmStatus | None:
        if self.cluster(cluster).slurm is None:
            return None
        return await slurm_status(self.slurm_site(cluster),
                                  [n.name for n in self._nodes(cluster)])

    async def health(self, cluster: str) -> ClusterHealth:
        """Every node, its workloads and the head's API; and supervision as the cluster's
        head (rank 0) keeps it, read at the same time."""
        timeout = self.config.health_timeout_seconds
        nodes = self._nodes(cluster)
        router = router_plan(self.config, self.cluster(cluster))
        results, supervision, router_now, slurm = await asyncio.gather(
            asyncio.gather(*(node_health(self.transport(n), timeout) for n in nodes)),
            self.supervision(cluster),
            self._router_status(cluster, router, timeout), self._slurm_status(cluster))
        services = []
        if any(w.is_service for r in results for w in r.workloads):
            transports = {n.name: self.transport(n) for n in nodes}
            services = await service_statuses(list(results), transports, timeout)
        health = ClusterHealth(cluster, list(results), time.time(), services, supervision,
                               router_now, slurm)
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
        """Line by line; ``log_batches`` is the fast path for screens and files. A gap is
        a marker with no text: why it came (``LogBatch.why``, a sentence as data) is
        ``log_batches``'s to say, a ``LogLine`` being exactly a pane's ``(node, text,
        gap)``."""
        batches = self.log_batches(cluster, node=node, recipe=recipe, tail=tail, follow=follow)
        try:
            async for batch in batches:
                if batch.gap:
                    yield LogLine(batch.node, "", gap=True)
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
            why = _gap_why(row)
            if why is not None:
                yield LogBatch(row.node, [], gap=True, why=why)
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

    async def fit(self, plan: LaunchPlan) -> FitReport:
        """The model of ``plan`` against each of its nodes' memory (sparktui.plan.fit)."""
        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        transports = {n.name: self.transport(nodes[n.name]) for n in plan.nodes}
        return await fit_report(plan, transports, self.config.hf_cache_host,
                                self.config.command_timeout_seconds)

    async def image_digests(self, plan: LaunchPlan) -> DigestReport:
        """The digest of the plan's image on each of its nodes (``engine/image_pins``)."""
        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        transports = {n.name: self.transport(nodes[n.name]) for n in plan.nodes}
        return await image_digests(plan, transports, self.config.command_timeout_seconds)

    async def doctor(self, cluster: str, images: Sequence[str] = ()) -> list[Check]:
        """Every node's checks, the images' (``images``; none: those of what runs) and
        each serving head's engine metrics (``sparktui.engine.doctor``)."""
        found = self.cluster(cluster)
        checks = await cluster_doctor(self.config, found,
                                      {n.name: self.transport(n) for n in found.nodes}, images)
        if found.slurm is not None:  # the submit host reaches Slurm; each node can be held
            checks += await slurm_checks(self.slurm_site(cluster), [n.name for n in found.ranked])
        return checks

    async def sessions(self, cluster: str, node: str) -> list[Workload]:
        """The node's workloads a terminal can attach to, this cluster's first (tmux's
        sessions: the node's docker, down or not, has no say in them); NodeError when the
        node does not answer."""
        found = await list_node(self.transport(self._nodes(cluster, node)[0]))
        return attachable(found.workloads, cluster)

    async def supervision(self, cluster: str) -> SupervisionStatus:
        """Supervision of ``cluster`` as its head keeps it (``health`` has it too); only
        this cluster's: the head's home may keep another cluster's (issue 29)."""
        head = self.transport(self._nodes(cluster)[0])
        return (await read_status(head, self.config.health_timeout_seconds)).of(cluster)

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


def _gap_why(row: NodeHealth) -> Said | None:
    """Why a node's logs cannot be streamed, as data: ``unreachable: ...``, ``docker
    unreachable: ...`` (the words ``sparktui logs`` and the logs pane have always shown);
    None when they can."""
    if not row.reachable:
        return (joined(Layout.COLON, said(Reason.UNREACHABLE), row.error) if row.error
                else said(Reason.UNREACHABLE))
    if row.docker_error is not None:
        return joined(Layout.COLON, said(Reason.DOCKER_UNREACHABLE), row.docker_error)
    return None


def _still_running(transport: Transport, workload: Workload):
    async def check() -> bool:
        try:
            found = await discover(transport)
        except NodeError:
            return True  # unreachable: keep trying, the gap marker shows it
        return any(w.name == workload.name and w.running for w in found)
    return check


