"""Launch a plan's services: per phase, every instance of a service at once, then
every instance's readiness gate at once; terminal services are waited for.

An instance whose container exits while it should be coming up fails the launch
at once with its exit code and last log lines (a terminal service is allowed to
finish: its exit code is the run's). Progress events use the step ``service``
with the node of the instance; ``detail`` starts with ``<service>[<index>]``.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass

from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.services import probe
from sparktui.engine.services.probe import Target
from sparktui.engine.workloads.leftover import created
from sparktui.engine.workloads.rollback import roll_back
from sparktui.i18n import N_, N_plural
from sparktui.plan.runtime.base import State
from sparktui.plan.service_model import ServiceInstance, ServicePlan
from sparktui.said import Code, Layout, Text, joined, said
from sparktui.steps import Step, StepState

STEP = Step.SERVICE


class ServiceSaid(Code):
    EXISTS = N_("{tag}: {container} already exists on the node; stop it first")
    STARTING = N_plural("{name}: {type}, {n} instance ({phase})",
                        "{name}: {type}, {n} instances ({phase})")
    READY = N_("{name}: ready in {seconds:.1f} s")
    LAUNCH = N_("{tag}: launch {container}")
    LAUNCH_FAILED = N_("{tag}: launch failed: {why}")
    LAUNCHED = N_("{tag}: launched {id}")
    RUNNING = N_("running")
    EXITED = N_("{tag}: exited {code}")
    READY_IN = N_("{tag}: ready ({what}) in {seconds:.1f} s")
    NOT_READY = N_("{tag}: not ready ({what}) after {seconds:g} s")
    ENDED = N_("{tag}: {container} {state} with exit code {code}")
    ENDED_GOES_ON = N_("{tag}: {container} {state} with exit code {code} "
                       "(not critical: serve goes on)")
    TERMINAL = N_("terminal: {names}")
    TERMINAL_CODE = N_("terminal: exit code {code}")


class ServiceFailed(Exception):
    """An instance did not come up; ``reported``: a failed event was already emitted."""

    def __init__(self, node: str | None, detail: Text, reported: bool = False):
        self.node, self.detail, self.reported = node, detail, reported
        super().__init__(f"{node}: {detail}")


@dataclass(frozen=True)
class Started:
    service: ServicePlan
    instance: ServiceInstance
    target: Target


def tag(instance: ServiceInstance) -> str:
    return f"{instance.service}[{instance.index}]"


def worst_exit(codes: list[int]) -> int:
    """The run's exit code: any failure beats success; among failures the highest."""
    return max(codes, key=lambda c: (c != 0, c), default=0)


class ServiceRunner:
    def __init__(self, transports: Mapping[str, Transport], say: ProgressLog, *,
                 poll_seconds: float = 0.5):
        self.t = transports
        self.say = say
        self.poll = poll_seconds
        self.started: list[Started] = []
        self.launching: list[Started] = []
        """Launches sent and not answered yet: a Ctrl+C then asks the node (``in_flight``)."""
        self._gone: set[str] = set()  # non-critical instances already reported as stopped

    # -- preflight ------------------------------------------------------------------
    async def preflight(self, services: list[ServicePlan]) -> None:
        """No instance's container may already exist on its node."""
        pairs = [(s, i) for s in services for i in s.instances]
        instances = [i for _s, i in pairs]

        async def check(service: ServicePlan, inst: ServiceInstance) -> str | None:
            found = await probe.state(self.t[inst.node], _target(service, inst))
            return None if found.missing else inst.node

        results = await asyncio.gather(*(check(s, i) for s, i in pairs), return_exceptions=True)
        for inst, result in zip(instances, results, strict=True):
            if isinstance(result, NodeError):
                raise ServiceFailed(inst.node, f"{tag(inst)}: {result.text}")
            if isinstance(result, BaseException):
                raise result
            if result is not None:
                raise ServiceFailed(inst.node, said(ServiceSaid.EXISTS, tag=tag(inst),
                                                    container=inst.container))

    # -- launch -----------------------------------------------------------------------
    async def start_phase(self, services: list[ServicePlan], phase: str) -> None:
        """Every service of ``phase`` in declaration order, each gated on its readiness."""
        for service in [s for s in services if s.start == phase]:
            await self.start(service)

    async def start(self, service: ServicePlan) -> None:
        began = time.monotonic()
        count = len(service.instances)
        self.say(STEP, None, StepState.STARTED, said(
            ServiceSaid.STARTING, name=service.name, type=service.type, n=count,
            phase=service.start))
        launched = await asyncio.gather(*(self._launch(service, i) for i in service.instances),
                                        return_exceptions=True)
        started = self._raise_first(launched)
        await _all_or_first_failure([self._await_ready(s) for s in started])
        self.say(STEP, None, StepState.OK, said(ServiceSaid.READY, name=service.name,
                                                seconds=round(time.monotonic() - began, 1)))

    def _raise_first(self, results: list[Started | BaseException]) -> list[Started]:
        """The instances launched, unless one failed: then its failure."""
        failures = [r for r in results if isinstance(r, BaseException)]
        for failure in failures:
            if not isinstance(failure, ServiceFailed | NodeError):
                raise failure
        if failures:
            first = failures[0]
            if isinstance(first, NodeError):
                raise ServiceFailed(first.node, first.text)
            raise first
        return [r for r in results if isinstance(r, Started)]

    async def _launch(self, service: ServicePlan, inst: ServiceInstance) -> Started:
        self.say(STEP, inst.node, StepState.STARTED, said(ServiceSaid.LAUNCH, tag=tag(inst),
                                                          container=inst.container))
        pending = Started(service, inst, _target(service, inst))
        self.launching.append(pending)
        why: Text
        try:
            result = await self.t[inst.node].run(shlex.join(driver_for(service.runtime).stamp(
                inst.launch)))
            why = (result.stderr or result.stdout).strip()[:300]
        except NodeError as exc:  # the node went away mid-launch: it may have the container
            result, why = None, exc.said
        self.launching.remove(pending)  # (a Ctrl+C leaves it listed, for in_flight)
        if result is None or not result.ok:
            detail = said(ServiceSaid.LAUNCH_FAILED, tag=tag(inst), why=why)
            self.say(STEP, inst.node, StepState.FAILED, detail)
            # Created, never run: removed (or named as left), not left to block the next.
            runtime = service.runtime
            if await created(self.t[inst.node], runtime, inst.container) and not await \
                    roll_back(self.t[inst.node], inst.node, runtime, inst.container, self.say):
                self.started.append(Started(service, inst, _target(service, inst)))
            raise ServiceFailed(inst.node, detail, reported=True)
        started = Started(service, inst, _target(service, inst))
        self.started.append(started)
        self.say(STEP, inst.node, StepState.OK, said(ServiceSaid.LAUNCHED, tag=tag(inst),
                                                     id=result.stdout.strip()[:12]))
        return started

    async def _await_ready(self, s: Started) -> None:
        inst, readiness, t = s.instance, s.service.readiness, self.t[s.instance.node]
        what: Text = probe.describe(readiness) or said(ServiceSaid.RUNNING)
        began = time.monotonic()
        deadline = began + readiness.timeout
        self.say(STEP, inst.node, StepState.WAITING, joined(Layout.COLON, tag(inst), what))
        while True:
            state = await probe.state(t, s.target)
            if not state.running:
                if s.service.terminal:  # finished already: its exit code is the run's
                    self.say(STEP, inst.node, StepState.OK, said(
                        ServiceSaid.EXITED, tag=tag(inst), code=state.exit_code))
                    return
                if not s.service.critical and readiness.kind == "none":
                    # Nothing waits on it: whenever it dies, it never fails the serve. (One
                    # that serve waits to be ready can never become so: that fails now.)
                    self._report_gone(s, state)
                    return
                await self._crashed(s, state)
            if await probe.ready(t, s.target, readiness):
                self.say(STEP, inst.node, StepState.OK,
                         said(ServiceSaid.READY_IN, tag=tag(inst), what=what,
                              seconds=round(time.monotonic() - began, 1)))
                return
            if time.monotonic() > deadline:
                detail = said(ServiceSaid.NOT_READY, tag=tag(inst), what=what,
                              seconds=readiness.timeout)
                self.say(STEP, inst.node, StepState.FAILED, detail)
                raise ServiceFailed(inst.node, detail, reported=True)
            await asyncio.sleep(self.poll)

    async def _crashed(self, s: Started, state: State) -> None:
        inst = s.instance
        tail = (await probe.logs(self.t[inst.node], s.target, tail=15)).strip()
        ended = said(ServiceSaid.ENDED, tag=tag(inst), container=inst.container,
                     state=state.status, code=state.exit_code)
        detail = joined(Layout.LINES, ended, tail) if tail else ended
        self.say(STEP, inst.node, StepState.FAILED, detail)
        raise ServiceFailed(inst.node, detail, reported=True)

    # -- while the engine loads ---------------------------------------------------------
    async def check_alive(self) -> None:
        """A critical instance that stopped running fails the serve at once (exit code and
        last lines); a non-critical one is reported once and left alone. Terminal
        services may finish whenever they like."""
        watched = [s for s in self.started if not s.service.terminal
                   and s.instance.container not in self._gone]
        states = await asyncio.gather(*(probe.state(self.t[s.instance.node], s.target)
                                        for s in watched))
        for s, state in zip(watched, states, strict=True):
            if state.running:
                continue
            if s.service.critical:
                await self._crashed(s, state)
            self._report_gone(s, state)

    def _report_gone(self, s: Started, state: State) -> None:
        """A non-critical instance stopped: said once, then left alone."""
        self._gone.add(s.instance.container)
        self.say(STEP, s.instance.node, StepState.WARN,
                 said(ServiceSaid.ENDED_GOES_ON, tag=tag(s.instance),
                      container=s.instance.container, state=state.status, code=state.exit_code))

    # -- terminal services --------------------------------------------------------------
    async def wait_terminal(self, services: list[ServicePlan]) -> int:
        """Until every instance of every terminal service has exited; the worst exit code."""
        names = {s.name for s in services if s.terminal}
        waiting = [s for s in self.started if s.service.name in names]
        self.say(STEP, None, StepState.WAITING, said(ServiceSaid.TERMINAL, names=sorted(names)))
        codes: dict[int, int] = {}
        while len(codes) < len(waiting):
            for n, s in enumerate(waiting):
                if n in codes:
                    continue
                state = await probe.state(self.t[s.instance.node], s.target)
                if state.running:
                    continue
                code = state.exit_code
                if code is None:  # vanished (or a signal ended a session's pane): failed
                    code = 1 if driver_for(s.target.runtime).runtime.keeps_ended else 0
                codes[n] = code
                self.say(STEP, s.instance.node,
                         StepState.OK if codes[n] == 0 else StepState.WARN,
                         said(ServiceSaid.EXITED, tag=tag(s.instance), code=codes[n]))
            if len(codes) < len(waiting):
                await self.check_alive()  # a crashed critical service ends the run now
                await asyncio.sleep(self.poll)
        worst = worst_exit(list(codes.values()))
        self.say(STEP, None, StepState.OK if worst == 0 else StepState.WARN,
                 said(ServiceSaid.TERMINAL_CODE, code=worst))
        return worst

    # -- rollback ---------------------------------------------------------------------
    async def in_flight(self) -> list[tuple[str, str]]:
        """After a Ctrl+C: each launch that was under way and is on its node now joins
        what a rollback removes; those not there yet are returned as (node, container),
        to be named: the node may still create them."""
        pending, self.launching = self.launching, []
        there = await asyncio.gather(*(created(self.t[s.instance.node], s.target.runtime,
                                               s.instance.container) for s in pending))
        self.started += [s for s, yes in zip(pending, there, strict=True) if yes]
        return [(s.instance.node, s.instance.container)
                for s, yes in zip(pending, there, strict=True) if not yes]

    async def rollback(self, grace_seconds: float = 30.0) -> None:
        """Remove what was started: the rest at once, then the critical services (what the
        rest leans on) at once; each gets its grace period, so a rollback costs about
        two of them, however many instances there are."""
        for critical in (False, True):
            group = [s for s in reversed(self.started) if s.service.critical is critical]
            await asyncio.gather(*(roll_back(self.t[s.instance.node], s.instance.node,
                                             s.target.runtime, s.instance.container, self.say,
                                             grace_seconds) for s in group))
        self.started = []


async def _all_or_first_failure(coros: list) -> None:
    """Await together; the first failure cancels the rest (a crash fails at once)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        for next_done in asyncio.as_completed(tasks):
            await next_done
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _target(service: ServicePlan, inst: ServiceInstance) -> Target:
    return Target(inst.node, inst.ssh_ip, inst.container, service.runtime)
