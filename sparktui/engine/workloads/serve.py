"""serve: preflight, hooks, HF references, launch (workers first), readiness.

Services start around the engine by phase: ``infra`` and ``before_workers``
before it, ``after_frontend`` once its API answers (``engine/services/launch.py``). A
services-only plan (no engine nodes) is gated on the services' readiness alone;
terminal services are then waited for and their worst exit code is the run's.

Nothing is started until every node passes preflight; a failed launch, an
engine that dies while loading, or a critical service that crashes meanwhile
removes what this serve started, unless the operator asked to keep it for a
post-mortem.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.engine.services.launch import ServiceFailed, ServiceRunner
from sparktui.engine.status import Workload
from sparktui.engine.workloads import preflight
from sparktui.engine.workloads.discover import discover
from sparktui.engine.workloads.hooks import ScriptText, StepFailed, run_hook
from sparktui.engine.workloads.leftover import created, left_behind
from sparktui.engine.workloads.pick import share_holders
from sparktui.engine.workloads.ports import port_free, rendezvous_free
from sparktui.engine.workloads.rollback import roll_back
from sparktui.i18n import N_
from sparktui.plan import hf
from sparktui.plan.fit.calc import ERROR, FITS, NO_FIT, FitReport
from sparktui.plan.fit.probe import question_for
from sparktui.plan.fit.shares import node_shares, share_line, share_refusal
from sparktui.plan.fit.text import node_line, refusal
from sparktui.plan.model import LaunchPlan, NodePlan
from sparktui.plan.runtime.base import State
from sparktui.said import Code, Layout, Said, Text, joined, lines, said
from sparktui.steps import Step, StepState


class ServeSaid(Code):
    EXISTS = N_("{container} already exists on the node; stop it first")
    NOT_IN_CACHE = N_("{repo} is not in the HF cache; run `huggingface-cli download {repo}` "
                      "on {node}")
    PATH_MISSING = N_("{path} missing; run `huggingface-cli download {repo}` on {node}")
    ODD_PATH = N_("unexpected characters in {path}")
    WAITING = N_("/v1/models on port {port}")
    ENDED = N_("{container} is {state}")
    NO_ANSWER = N_("no answer on /v1/models after {seconds:g} s")
    INTERRUPTED = N_("interrupted: removing what this serve started (Ctrl+C again leaves it)")
    UNDER_WAY = N_("interrupted while its launch was under way: {container} was not there "
                   "yet and may still appear")


FIRST_POLL_SECONDS = 0.25
"""The readiness wait polls soon after the launch, then backs off to ``poll_seconds``: a
small model that loads in a second is seen serving then, not at the next tick."""
POLL_SECONDS = 1.0
"""At most this long between two looks while an engine loads: a look is one GET of the
head's /v1/models and each member's state, all through the Docker API and the SSH
connection already open (the docker driver), so serving is seen within a second of it."""


class Serve:
    def __init__(self, plan: LaunchPlan, transports: Mapping[str, Transport],
                 progress: ProgressSink, scripts: ScriptText, *, hf_cache_host: str,
                 ready_timeout: float, poll_seconds: float = POLL_SECONDS,
                 keep_on_failure: bool = False, stop_grace: float = 30.0,
                 fit: Callable[[LaunchPlan], Awaitable[FitReport]] | None = None,
                 force: bool = False,
                 model_free: Callable[[LaunchPlan, ProgressLog], Awaitable[Said | None]]
                 | None = None):
        self.plan = plan
        self.driver = driver_for(plan.runtime)
        self.t = transports
        self.scripts, self.hf_cache_host = scripts, hf_cache_host
        self.ready_timeout, self.poll_seconds = ready_timeout, poll_seconds
        self.keep = keep_on_failure
        self.stop_grace = stop_grace
        self.started: list[NodePlan] = []
        self._say = ProgressLog(progress)
        self.image_ids: dict[str, str | None] = {}
        self.services = ServiceRunner(transports, self._say)
        self.fit = fit
        self.fit_report: FitReport | None = None
        self.force, self.model_free = force, model_free  # model_free: engine/router_names.py
        self._launching: NodePlan | None = None  # its docker run is under way
        self._unsure: list[tuple[str, str]] = []  # (node, workload): may appear after a Ctrl+C
        self._rolling_back = False

    async def run(self) -> ActionResult:
        """The serve; cancelled (Ctrl+C), it first removes what it started (unless kept),
        and names whatever it leaves (``left`` rows) before the cancellation goes on."""
        try:
            return await self._serve()
        except asyncio.CancelledError:
            await self._interrupted()
            raise

    async def _serve(self) -> ActionResult:
        services = self.plan.services
        exit_code = None
        try:
            await self._before_preflight()
            await self._images_present(await self._each(Step.PREFLIGHT, self._image))
            await self._each(Step.PREFLIGHT, self._preflight)
            await self._service_step(self.services.preflight(services))
            await self._fit()
            if self.plan.nodes:
                await self._beside_others()
            resolved = await self._each(Step.HF, self._resolve_hf)
            self.plan = replace(self.plan, nodes=[
                hf.substitute(n, resolved.get(n.name) or {}) for n in self.plan.nodes])
            await self._start()
            if self.plan.nodes:
                await self._wait_ready()
            await self._after_ready()
            if any(s.terminal for s in services):
                exit_code = await self._service_step(self.services.wait_terminal(services))
        except StepFailed as exc:
            if not exc.reported:
                self._say(exc.step, exc.node, StepState.FAILED, exc.detail)
            if self._anything_started() and not self.keep:
                await self._roll_back_all()
            self._say_left()
            return ActionResult(False, exc.node, exc.step, exc.detail, list(self._say.events))
        return ActionResult(True, steps=list(self._say.events), exit_code=exit_code)

    async def _before_preflight(self) -> None:
        """Nothing: a Slurm serve on any N nodes allocates them here (engine/slurm/serve.py)."""

    async def _start(self) -> None:
        """The before_serve hooks, the first services, then each launch in start order
        (a Slurm serve submits one job that does it all: ``engine/slurm/serve.py``)."""
        await self._each(Step.BEFORE_SERVE, self._before_serve)
        for phase in ("infra", "before_workers"):
            await self._service_step(self.services.start_phase(self.plan.services, phase))
        for name in self.plan.start_order:
            await self._launch(self.plan.node(name))

    async def _after_ready(self) -> None:
        await self._service_step(self.services.start_phase(self.plan.services,
                                                           "after_frontend"))

    async def _service_step(self, work: Awaitable[object]):
        """Service failures become the serve's StepFailed (step ``service``)."""
        try:
            return await work
        except ServiceFailed as exc:
            raise StepFailed(exc.node, Step.SERVICE, exc.detail, reported=exc.reported) from None
        except NodeError as exc:
            raise StepFailed(exc.node, Step.SERVICE, exc.said) from None

    async def _each(self, step: Step, action: Callable[[NodePlan], Awaitable[object]]) -> dict:
        """Run a step on every node at once; every node's outcome is reported."""
        nodes = self.plan.nodes
        results = await asyncio.gather(*(action(n) for n in nodes), return_exceptions=True)
        failures = []
        for node, result in zip(nodes, results, strict=True):
            if isinstance(result, StepFailed):
                self._say(result.step, result.node, StepState.FAILED, result.detail)
                failures.append(result)
            elif isinstance(result, NodeError):
                self._say(step, node.name, StepState.FAILED, result.said)
                failures.append(StepFailed(node.name, step, result.said))
            elif isinstance(result, BaseException):
                raise result
        if failures:
            first = failures[0]
            raise StepFailed(first.node, first.step, first.detail, reported=True) from None
        return {n.name: r for n, r in zip(nodes, results, strict=True)}

    # -- preflight ---------------------------------------------------------------
    async def _image(self, node: NodePlan) -> preflight.ImageOn:
        self._say(Step.PREFLIGHT, node.name, StepState.STARTED)
        return await preflight.image_on(self.t[node.name], self.plan, node.name)

    async def _images_present(self, found: dict[str, preflight.ImageOn]) -> None:
        """Every node has the image, the same one, or each that lacks it is named with its
        fix."""
        self.image_ids = {name: on.id for name, on in found.items()}
        if refusals := preflight.missing_image_refusal(self.plan, found):
            for r in refusals:
                self._say(r.step, r.node, StepState.FAILED, r.detail)
            raise StepFailed(refusals[0].node, Step.PREFLIGHT,
                             lines([r.detail for r in refusals]), reported=True)
        if differ := preflight.ids_differ(self.image_ids):
            raise StepFailed(None, Step.PREFLIGHT, differ)

    async def _preflight(self, node: NodePlan) -> None:
        """No workload of that name yet, and the GPUs its launch asks for can be given."""
        t = self.t[node.name]
        if not (await self.driver.state(t, node.container)).missing:
            raise StepFailed(node.name, Step.PREFLIGHT,
                             said(ServeSaid.EXISTS, container=node.container))
        if gpus := await preflight.gpus_refusal(t, self.plan, node):
            raise StepFailed(node.name, Step.PREFLIGHT, gpus)
        self._say(Step.PREFLIGHT, node.name, StepState.OK, self.image_ids.get(node.name) or "")

    async def _fit(self) -> None:
        """The model against each node's memory: what does not fit (or cannot be
        checked on a node that answers nothing) stops here, unless forced."""
        if self.fit is None or not self.plan.nodes:
            return
        report = self.fit_report = await self.fit(self.plan)
        blocking = [n for n in report.nodes if n.verdict in (NO_FIT, ERROR)]
        for n in report.nodes:
            state = (StepState.OK if n.verdict == FITS else
                     StepState.FAILED if n in blocking and not self.force else StepState.WARN)
            self._say(Step.FIT, n.node, state, node_line(n))
        if blocking and not self.force:
            raise StepFailed(blocking[0].node, Step.FIT, refusal(blocking), reported=True)

    async def _beside_others(self) -> None:
        """What the nodes say already runs there: the head's port must be free, and the
        engines' shares of each node must leave room for this one (sparktui.plan.fit.shares)."""
        found = await self._each(Step.PREFLIGHT, lambda n: discover(self.t[n.name]))
        head = self.t[self.plan.head.name]
        await port_free(head, self.plan, found.get(self.plan.head.name) or [])
        if len(self.plan.nodes) > 1:
            await rendezvous_free(head, self.plan, found)
        self._shares(found)
        if self.model_free and (why := await self.model_free(self.plan, self._say)):
            raise StepFailed(self.plan.head.name, Step.ROUTER, why)  # served behind the router

    def _shares(self, found: dict[str, list[Workload]]) -> None:
        settings = question_for(self.plan).settings
        if settings is None:
            return  # a share flag that is no number: the fit has said so
        totals = {n.node: n.mem_total for n in (self.fit_report.nodes if self.fit_report
                                                 else [])}
        rows = []
        for node in self.plan.nodes:
            holders = share_holders(found.get(node.name) or [], self.plan.recipe)
            if holders:
                rows.append(node_shares(node.name, self.plan.recipe, settings.share, holders,
                                        totals.get(node.name, 0)))
        blocking = [r for r in rows if not r.ok]
        for row in rows:
            state = (StepState.OK if row.ok else
                     StepState.WARN if self.force else StepState.FAILED)
            self._say(Step.SHARES, row.node, state, share_line(row))
        if blocking and not self.force:
            raise StepFailed(blocking[0].node, Step.SHARES, share_refusal(blocking),
                             reported=True)

    async def _resolve_hf(self, node: NodePlan) -> dict[str, str]:
        values: dict[str, str] = {}
        t = self.t[node.name]
        for ref in self.plan.hf_refs:
            refs_main = hf.refs_main_path(self.hf_cache_host, ref.repo)
            got = await t.run(shlex.join(["cat", refs_main]))
            commit = got.stdout.strip()
            if not got.ok or not commit:
                raise StepFailed(node.name, Step.HF, said(ServeSaid.NOT_IN_CACHE, repo=ref.repo,
                                                          node=node.name))
            host_path = hf.snapshot_path(self.hf_cache_host, ref, commit)
            if not (await t.run(shlex.join(["test", "-d", host_path]))).ok:
                raise StepFailed(node.name, Step.HF, said(
                    ServeSaid.PATH_MISSING, path=host_path, repo=ref.repo, node=node.name))
            container_path = hf.to_container(self.hf_cache_host, host_path)
            if not hf.safe_path(container_path):
                raise StepFailed(node.name, Step.HF, said(ServeSaid.ODD_PATH,
                                                          path=container_path))
            values[ref.placeholder] = container_path
            self._say(Step.HF, node.name, StepState.OK,
                      f"{{{{{ref.placeholder}}}}} -> {container_path}")
        return values

    # -- hooks, launch, readiness --------------------------------------------------
    async def _before_serve(self, node: NodePlan) -> None:
        for step in node.before_serve:
            await run_hook(self.t[node.name], node.name, step, Step.BEFORE_SERVE, self.scripts,
                           self._say)

    async def _launch(self, node: NodePlan) -> None:
        self._say(Step.LAUNCH, node.name, StepState.STARTED, node.role)
        self._launching = node
        # a fresh run id per container: this one is sparktui's (run_id.py)
        why: Text
        try:
            result = await self.t[node.name].run(shlex.join(self.driver.stamp(node.launch)))
            why = (result.stderr or result.stdout).strip()[:300]
        except NodeError as exc:  # the node went away mid-launch: it may have the workload
            result, why = None, exc.said
        self._launching = None
        if result is None or not result.ok:
            self._say(Step.LAUNCH, node.name, StepState.FAILED, why)
            # Created, never run (no GPU runtime, no such entrypoint): removed, kept or
            # not, or it blocks the next serve ("already exists").
            if await self._created(node) and not await roll_back(
                    self.t[node.name], node.name, self.plan.runtime, node.container,
                    self._say, self.stop_grace):
                self.started.append(node)  # still there: named, removal tried again
            raise StepFailed(node.name, Step.LAUNCH, why, reported=True)
        self.started.append(node)
        self._say(Step.LAUNCH, node.name, StepState.OK, result.stdout.strip()[:12])

    async def _state(self, node: NodePlan) -> State:
        state = await self.driver.state(self.t[node.name], node.container)
        if state.missing and not self.driver.runtime.keeps_ended:
            return State("exited")  # it was started: gone without a trace means it ended
        return state

    async def _last_lines(self, node: NodePlan, count: int = 15) -> str:
        return (await self.driver.last_lines(self.t[node.name], node.container,
                                             count)).strip()

    async def _wait_ready(self) -> None:
        head = self.plan.head
        deadline = time.monotonic() + self.ready_timeout
        started = time.monotonic()
        wait = min(FIRST_POLL_SECONDS, self.poll_seconds)
        self._say(Step.READY, head.name, StepState.WAITING,
                  said(ServeSaid.WAITING, port=self.plan.port))
        while True:
            for node in self.started:
                try:
                    state = await self._state(node)
                    tail = "" if state.running else await self._last_lines(node)
                except NodeError as exc:  # the node died or stopped answering meanwhile
                    raise StepFailed(node.name, Step.READY, exc.said) from None
                if not state.running:
                    raise StepFailed(node.name, Step.READY, joined(Layout.LINES, said(
                        ServeSaid.ENDED, container=node.container, state=str(state)), tail))
            await self._service_step(self.services.check_alive())  # a crashed etcd fails now
            try:
                answer = await http_get(self.t[head.name], head.ssh_ip, self.plan.port,
                                        "/v1/models", 5)
                if answer.status == 200:
                    self._say(Step.READY, head.name, StepState.OK,
                              f"{time.monotonic() - started:.0f} s")
                    return
            except Exception:  # not listening yet: keep waiting
                pass
            if time.monotonic() > deadline:
                raise StepFailed(head.name, Step.READY, said(ServeSaid.NO_ANSWER,
                                                             seconds=self.ready_timeout))
            self._say(Step.READY, head.name, StepState.WAITING,
                      f"{time.monotonic() - started:.0f} s")
            await asyncio.sleep(wait)
            wait = min(wait * 2, self.poll_seconds)

    async def _created(self, node: NodePlan) -> bool:
        return await created(self.t[node.name], self.plan.runtime, node.container)

    async def _interrupted(self) -> None:
        """Ctrl+C: remove what this serve started (not when kept, nor again when a
        rollback is already under way); a second Ctrl+C stops the removal. Either way,
        what is left is named last."""
        try:
            launching, self._launching = self._launching, None
            if launching is not None:
                if await self._created(launching):
                    self.started.append(launching)
                else:  # the node may still carry out the command its client left
                    self._unsure.append((launching.name, launching.container))
            self._unsure += await self.services.in_flight()
            if self.keep or self._rolling_back or not self._anything_started():
                return
            self._say(Step.ROLLBACK, None, StepState.STARTED, said(ServeSaid.INTERRUPTED))
            await self._roll_back_all()
        finally:
            self._say_left()

    def _anything_started(self) -> bool:
        return bool(self.started or self.services.started)

    async def _roll_back_all(self) -> None:
        self._rolling_back = True
        await self._rollback()
        await self.services.rollback(self.stop_grace)

    def _say_left(self) -> None:
        """A ``left`` row for each workload started and not removed (kept, interrupted,
        or its removal failed)."""
        started = [(n.name, n.container) for n in self.started]
        started += [(s.instance.node, s.instance.container) for s in self.services.started]
        for node, container in left_behind(self._say.events, started):
            self._say(Step.LEFT, node, StepState.WARN, container)
        for node, container in self._unsure:  # named too: not there yet is not "not there"
            self._say(Step.LAUNCH, node, StepState.WARN,
                      said(ServeSaid.UNDER_WAY, container=container))
            self._say(Step.LEFT, node, StepState.WARN, container)

    async def _rollback(self) -> None:
        """Every node's workload at once: each gets its grace period."""
        await asyncio.gather(*(roll_back(self.t[n.name], n.name, self.plan.runtime,
                                         n.container, self._say, self.stop_grace)
                               for n in reversed(self.started)))

