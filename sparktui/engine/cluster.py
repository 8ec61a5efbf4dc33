"""The engine object the CLI and the dashboard hold: every read (``engine.reads``) and
every action that changes a cluster.

``ClusterEngine`` is a ``sparktui.engine.api.ClusterControl``; the front-ends open one with
``sparktui.engine.api.open_engine`` and ``--watch`` holds it behind the read-only face
``sparktui.engine.api.ReadOnlyView``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sparktui.config.models import Node
from sparktui.config.scripts import known_script_texts, script_text
from sparktui.engine import image_pins
from sparktui.engine.progress import ProgressLog
from sparktui.engine.pull.run import pull as run_pull
from sparktui.engine.pull.transfer import PullParts, TransferSink
from sparktui.engine.reads import ClusterReads
from sparktui.engine.remote.attach import docker_shell_argv, tmux_attach_argv
from sparktui.engine.remote.transport import NodeError
from sparktui.engine.results import ActionResult, ExecResult, ProgressSink
from sparktui.engine.router import (
    POLL_SECONDS,
    SERVED_LOOKS,
    RouterSaid,
    refresh_router,
    settled,
)
from sparktui.engine.router_key import RouterKeyError, client_key
from sparktui.engine.router_names import say_unread, taken
from sparktui.engine.slurm.serve import SlurmServe
from sparktui.engine.slurm.stop import cancel_jobs
from sparktui.engine.status import Workload
from sparktui.engine.supervise import history, on_node
from sparktui.engine.supervise.disarm import disarm as supervise_disarm
from sparktui.engine.supervise.ending import Ending, ending
from sparktui.engine.supervise.events import SuperviseResult, SuperviseSink
from sparktui.engine.supervise.loop import Supervisor
from sparktui.engine.supervise.policy import Policy
from sparktui.engine.supervise.remote import new_mark
from sparktui.engine.workloads.restart import Restarted, restart
from sparktui.engine.workloads.serve import Serve
from sparktui.engine.workloads.stop import Stop
from sparktui.plan.after_stop import HooksFor
from sparktui.plan.anywhere import Replan
from sparktui.plan.bench.aiperf import BenchSettings
from sparktui.plan.model import LaunchPlan
from sparktui.plan.power import PowerPlan, plan_off, plan_on, plan_switch
from sparktui.plan.router import router_plan
from sparktui.said import Said, said
from sparktui.steps import Step, StepState

if TYPE_CHECKING:
    from sparktui.engine.bench.kept import Benched, BenchHeard


class ClusterEngine(ClusterReads):
    # -- serving and stopping ----------------------------------------------------------
    async def serve(self, plan: LaunchPlan, progress: ProgressSink, *,
                    keep_on_failure: bool = False, force: bool = False,
                    replan: Replan | None = None) -> ActionResult:
        """Preflight includes the memory fit: what does not fit is refused unless
        ``force``. ``replan`` (``plan.anywhere.replan_for``): a Slurm cluster's job holds
        any N of its nodes, and the plan is resolved on them; the result's ``served`` is
        the plan as it ran."""
        ranked = self._nodes(plan.cluster)
        nodes = {n.name: n for n in ranked}
        names = [n.name for n in plan.nodes]
        names += [i.node for s in plan.services for i in s.instances]
        transports = {name: self.transport(nodes[name]) for name in dict.fromkeys(names)}
        kind = Serve if plan.slurm is None else functools.partial(
            SlurmServe, site=self.slurm_site(plan.cluster), scripts_by_name=known_script_texts(),
            replan=replan, table={n.name: self.transport(n) for n in ranked})
        serve = kind(plan, transports, progress, script_text,
                     hf_cache_host=self.config.hf_cache_host,
                     ready_timeout=self.config.ready_timeout_seconds,
                     keep_on_failure=keep_on_failure, stop_grace=self.config.stop_grace_seconds,
                     fit=self.fit, force=force, model_free=self._model_free)
        result = dataclasses.replace(await serve.run(), served=serve.plan)
        if not result.ok:
            return result
        plan = serve.plan
        await image_pins.after_serve(plan, {n.name: serve.t[n.name] for n in plan.nodes},
                                     progress, self.config.command_timeout_seconds)
        await history.after_serve(self.transport(ranked[0]), plan.cluster,
                                  plan.recipe, self.config.health_timeout_seconds, progress)
        return await self.refresh_router(plan.cluster, progress, result, served=plan.recipe,
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
        slurm = ProgressLog(progress)
        cancelled = (self.cluster(cluster).slurm is None
                     or await cancel_jobs(self.slurm_site(cluster), recipe, slurm))
        # Slurm not answering never keeps the containers up: they are stopped over SSH all
        # the same (a job's shell then ends with its head's container), and the stop fails
        # naming Slurm
        result = await Stop(cluster, transports, progress, script_text, recipe=recipe,
                            hooks_for=hooks_for, stop_grace=self.config.stop_grace_seconds).run()
        result = dataclasses.replace(result, steps=[*slurm.events, *result.steps])
        if not cancelled and result.ok:
            failed = slurm.events[-1]
            result = dataclasses.replace(result, ok=False, failed_node=failed.node,
                                         failed_step=Step.SLURM, detail=failed.detail)
        if disarm:
            await on_node.remove(transports.values(), cluster, recipe, progress)
        return await self.refresh_router(cluster, progress, result)

    async def restart(self, plan: LaunchPlan, progress: ProgressSink, *,
                      hooks_for: HooksFor | None = None,
                      replan: Replan | None = None) -> Restarted:
        """Stop ``plan``'s recipe, then serve ``plan`` (nothing after a failed stop)."""
        return await restart(self, plan, progress, hooks_for=hooks_for, replan=replan)

    async def pull_model(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        """The model pull (``sparktui.engine.pull.model``), each node's HF cache the
        config's ``hf_cache``."""
        from sparktui.engine.pull.model import pull_model  # huggingface_hub: on first use

        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        transports = {n.name: self.transport(nodes[n.name]) for n in plan.nodes}
        caches = {n.name: self.config.hf_cache_host for n in plan.nodes}
        return await pull_model(self.config, plan, transports, caches, ProgressLog(progress),
                                transfers)

    # -- the router (sparktui.engine.router) ----------------------------------------------
    async def _model_free(self, plan: LaunchPlan, log: ProgressLog) -> Said | None:
        """None when no other recipe's head lists a name ``plan`` serves (or the cluster
        has no router, or ``--share-model``); else the refusal (sparktui.engine.router_names)."""
        if plan.router is None or plan.router.share_model or not plan.nodes:
            return None
        health = await self.health(plan.cluster)
        say_unread(health, plan.recipe, plan.router.node, log)
        return taken(health, plan)

    async def refresh_router(self, cluster: str, progress: ProgressSink,
                             result: ActionResult, *, share_model: bool = False,
                             served: str | None = None) -> ActionResult:
        """The router made again from what serves now; its warnings join ``result``'s.
        ``share_model``: the serve it follows balances a name on purpose. ``served``: the
        recipe that serve just saw answer /v1/models. A look that does not see it ready,
        or where a head's API timed out (a busy node), is a failed look, not the truth:
        it is taken again before the router is made without them (or removed)."""
        router = router_plan(self.config, self.cluster(cluster))
        if router is None:
            return result
        router = dataclasses.replace(router, share_model=share_model)
        log = ProgressLog(progress)
        try:
            key = client_key(self.cluster(cluster))
        except (RouterKeyError, OSError) as exc:
            log(Step.ROUTER, router.node, StepState.WARN,
                said(RouterSaid.NOT_UPDATED, error=exc.said if isinstance(
                    exc, RouterKeyError) else exc.strerror or str(exc)))
            return dataclasses.replace(result, steps=[*result.steps, *log.events])
        nodes = {n.name: n for n in self._nodes(cluster)}
        try:
            health = await self.health(cluster)
            for _ in range(SERVED_LOOKS):
                if settled(health, served):
                    break
                await asyncio.sleep(POLL_SECONDS)
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
                        mode: str = "foreground", replan: Replan | None = None
                        ) -> SuperviseResult:
        """Keep ``plan``'s group alive until an operator stops it, its supervision is
        ended, the limits are reached, or the task is cancelled (the group stays)."""
        policy = Policy.from_config(self.config, interval)
        return await Supervisor(self, plan, policy, events, mode=mode,
                                hooks_for=hooks_for, replan=replan).run()

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

    # -- a terminal on a node (sparktui.engine.remote.attach) ------------------------------
    def _node(self, cluster: str, workload: Workload) -> Node:
        return next(n for n in self.cluster(cluster).nodes if n.name == workload.node)

    def attach_argv(self, cluster: str, workload: Workload) -> list[str]:
        """The argv that hands this terminal to ``workload``'s tmux session on its node."""
        return tmux_attach_argv(self.config, self._node(cluster, workload), workload.name)

    def shell_argv(self, cluster: str, workload: Workload, command: Sequence[str] = (), *,
                   tty: bool = True) -> list[str]:
        """The argv of a shell (or ``command``) in ``workload``'s container on its node."""
        return docker_shell_argv(self.config, self._node(cluster, workload), workload.name,
                                 command, tty=tty)

    # -- benchmarks (sparktui.engine.bench) ------------------------------------------------
    async def bench(self, plan: LaunchPlan, settings: BenchSettings,
                    progress: ProgressSink) -> ActionResult:
        """The dashboard's benchmark of ``plan``'s recipe: its levels as steps."""
        from sparktui.engine.bench.action import bench_action  # aiperf's driver: on first use

        return await bench_action(self, plan, settings, progress)

    async def bench_recipe(self, cluster: str, recipe: str | None, settings: BenchSettings,
                           tool: str, heard: BenchHeard, *, via: str = "auto",
                           plan_of: Callable[[str], LaunchPlan | None] | None = None
                           ) -> Benched:
        """``sparktui bench``: load on the head of ``recipe`` (None: the one that serves)
        with ``tool``, the run kept; ``plan_of`` gives the plan the recipe builds, for the
        record (None: it no longer builds)."""
        from sparktui.engine.bench.action import bench_serving

        return await bench_serving(self, cluster, recipe, settings, tool, heard, via=via,
                                   plan_of=plan_of)

    # -- pull (sparktui.engine.pull) --------------------------------------------------------
    async def pull_image(self, plan: LaunchPlan, progress: ProgressSink,
                         transfers: TransferSink) -> ActionResult:
        """The plan's nodes that lack its image get it (``sparktui.engine.pull.image``)."""
        from sparktui.engine.pull.image import pull_image

        nodes = {n.name: n for n in self._nodes(plan.cluster)}
        transports = {n.name: self.transport(nodes[n.name]) for n in plan.nodes}
        return await pull_image(self.config, nodes, transports, plan, progress, transfers)

    async def pull(self, plan: LaunchPlan, parts: PullParts, progress: ProgressSink,
                   transfers: TransferSink) -> ActionResult:
        """The image, then the model (``sparktui.engine.pull.run``)."""
        return await run_pull(plan, parts, progress, transfers, image=self.pull_image,
                              model=self.pull_model)

    # -- power (Home Assistant; see sparktui.engine.power.control) ---------------------------
    async def power(self, plan: PowerPlan, progress: ProgressSink) -> ActionResult:
        """Run a power plan (``sparktui.plan.power``) the front-end showed and confirmed."""
        from sparktui.engine.power.control import run_power  # Home Assistant: on first use

        return await run_power(self, plan, progress)

    async def power_off(self, cluster: str, progress: ProgressSink) -> ActionResult:
        """Shut the nodes down over SSH, then turn off the entities of those that went."""
        return await self.power(plan_off(self.config, cluster), progress)

    async def power_on(self, cluster: str, progress: ProgressSink) -> ActionResult:
        """Turn on the extras, then the nodes' entities; wait until the nodes answer SSH."""
        return await self.power(plan_on(self.config, cluster), progress)

    async def power_switch(self, source: str, target: str,
                           progress: ProgressSink) -> ActionResult:
        """Power off what only ``source`` uses, then power on all of ``target``."""
        return await self.power(plan_switch(self.config, source, target), progress)


__all__ = ["ClusterEngine"]
