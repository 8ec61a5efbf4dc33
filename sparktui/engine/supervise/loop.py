"""The supervisor: keep one serving group alive, and never fight the operator.

It takes the lease on the group's head (one supervisor per group, whoever runs it), notes
the marks already on the nodes, serves the recipe unless its group runs, then checks it
every interval (``checks``). A failure seen on ``failure_checks`` checks in a row restarts
the whole group: stop every node, then serve the same plan again, preflight included (an
NCCL group cannot take back one rank). ``policy`` bounds it.

Before every restart, during its serve and at every check it reads the nodes' marks: a stop,
an end of supervision or a power off written since it armed ends it at once, without a
restart (a stop that raced a restart's serve wins: what that serve started is stopped
again). Its state is written on the head for every operator's ``health``.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import time
import uuid
from dataclasses import replace

from sparktui.engine.deadline import within
from sparktui.engine.remote.transport import NodeError
from sparktui.engine.results import ActionResult, Progress
from sparktui.engine.slurm.supervise import running_plan, time_limit_failure
from sparktui.engine.supervise import remote
from sparktui.engine.supervise.baseline import MarkBaseline
from sparktui.engine.supervise.checks import (
    Check,
    NodeLook,
    check,
    has_container,
    look,
    member_lines,
    members,
    started_of,
)
from sparktui.engine.supervise.codes import (
    SuperviseSaid,
    apart,
    armed_said,
    failures_said,
    first_line,
    mark_said,
    reason_said,
    refused_said,
    short_said,
)
from sparktui.engine.supervise.events import (
    Happening,
    SuperviseEngine,
    SuperviseEvent,
    SuperviseResult,
    SuperviseSink,
)
from sparktui.engine.supervise.memory import Short, memory_back
from sparktui.engine.supervise.policy import (
    GiveUp,
    Policy,
    StallWatch,
    counts,
    decide,
    restarts_within,
)
from sparktui.engine.supervise.record import (
    HISTORY_KEPT,
    Failure,
    Lease,
    Mark,
    Reason,
    Record,
    RestartEvent,
)
from sparktui.engine.supervise.start import answered
from sparktui.plan.after_stop import HooksFor
from sparktui.plan.anywhere import Replan
from sparktui.plan.model import LaunchPlan
from sparktui.said import Text, said

CLEANUP_SECONDS = 20.0
"""How long an interrupted supervisor may take to write its record and free the lease."""


class Supervisor:
    def __init__(self, engine: SuperviseEngine, plan: LaunchPlan, policy: Policy,
                 events: SuperviseSink, *, mode: str = "foreground",
                 hooks_for: HooksFor | None = None, replan: Replan | None = None):
        self.engine, self.policy, self.emit_to = engine, policy, events
        self.hooks_for, self.replan = hooks_for, replan
        cluster = engine.cluster(plan.cluster)
        self.transports = {n.name: engine.transport(n) for n in cluster.nodes}
        self.home = self.transports[cluster.ranked[0].name]  # where health reads it
        self._adopt(plan)
        holder = f"{remote.who()} pid {os.getpid()}"
        self.lease = Lease(uuid.uuid4().hex, math.ceil(policy.lease), holder, plan.cluster,
                           plan.recipe, mode, time.time())
        self.timeout = engine.config.health_timeout_seconds
        self.marks = MarkBaseline()
        self.restarts: list[RestartEvent] = []
        self.ever_healthy = False
        self.started: dict = {}
        self.stall = StallWatch(policy.stall)
        self.since = time.time()
        self.armed_at = time.monotonic()
        self.last_lines: tuple[str, ...] = ()
        self.last_lines_node: str | None = None
        self.status = "watching"  # as last written on the head (``_save``)
        self.lost: Lease | bool | None = False  # a lease: the holder that took it over
        self.healthy_since: float | None = None

    # -- the run -------------------------------------------------------------------
    async def run(self) -> SuperviseResult:
        try:
            holder = await remote.acquire(self.home, self.lease)
        except NodeError as exc:
            return SuperviseResult("failed", detail=exc.said)
        if holder is not None:
            self._emit(Happening.REFUSED, refused_said(holder))
            return SuperviseResult("refused", holder=holder)
        heartbeat = asyncio.create_task(self._heartbeat())
        try:
            return await self._supervise()
        except asyncio.CancelledError:  # mid-restart, the group is as its steps left it
            group = ("restart" if self.status in ("restarting", "memory") else
                     "healthy" if self.healthy_since is not None else "unchecked")
            why = Reason("interrupted", {"group": group})
            with contextlib.suppress(Exception):
                await within(self._save("ended", why), CLEANUP_SECONDS)
            self._emit(Happening.INTERRUPTED, reason_said(why))
            raise
        finally:
            heartbeat.cancel()
            if self.lost is False:
                with contextlib.suppress(Exception):
                    await within(remote.release(self.home, self.lease.token),
                                           CLEANUP_SECONDS)

    async def _supervise(self) -> SuperviseResult:
        await self._disarming_now()  # the marks already there: history, every node's baseline
        self._emit(Happening.ARMED, armed_said(self.plan.recipe, self.plan.cluster, self.policy))
        await self._save("watching")
        ended = await self._start()
        if ended is not None:
            return ended
        in_a_row, away = 0, None
        while True:
            cycle = time.monotonic()
            result = await self._check()
            ended = await self._ended_by(result.marks)
            if ended is not None:
                return ended
            since = time.monotonic() - self.armed_at
            unreachable = [f for f in result.failures if f.kind == "unreachable"]
            if not result.failures:
                if in_a_row or away or self.healthy_since is None:
                    self._emit(Happening.HEALTHY, said(SuperviseSaid.HEALTHY))
                    self.healthy_since = self.healthy_since or time.time()
                    await self._save("watching")
                self.ever_healthy, in_a_row, away = True, 0, None
            elif unreachable:
                # Nothing can be served there, and its marks cannot be read (a power off,
                # a stop may be written there): wait for it, never restart around it.
                in_a_row, away = 0, await self._waiting_for(unreachable, away)
            elif counts(result.failures, ever_healthy=self.ever_healthy, since_armed=since,
                        policy=self.policy):
                in_a_row, away = in_a_row + 1, None
                self._emit(Happening.FAILING, failures_said(result.failures),
                           failures=tuple(result.failures), count=in_a_row,
                           of=self.policy.failure_checks)
                if in_a_row >= self.policy.failure_checks:
                    in_a_row, self.healthy_since = 0, None
                    ended = await self._on_failure(result.failures)
                    if ended is not None:
                        return ended
            await asyncio.sleep(max(0.0, self.policy.interval - (time.monotonic() - cycle)))

    def _adopt(self, plan: LaunchPlan) -> None:
        """The plan as it runs: on a Slurm cluster's any N nodes, the job's (a restart's
        job may hold others). The group's nodes are watched: a stop or a power off that
        concerns it writes its mark there."""
        self.plan, self.group = plan, members(plan)
        self.watched = list(dict.fromkeys(m.node for m in self.group))

    async def _start(self) -> SuperviseResult | None:
        if self.replan is not None:  # the nodes its running job holds, if one runs
            found = await running_plan(self.engine.slurm_site(self.plan.cluster), self.plan,
                                       self.replan)
            if not found:
                return None
            if not isinstance(found, LaunchPlan):
                # the record said "watching" at arming: it ends, saying why, not stale
                await self._save("ended", Reason("where_unknown", {"detail": found}))
                return SuperviseResult("failed", detail=found)
            self._adopt(found)
        looks = await answered(self.group, interval=self.policy.interval, looks=self._looks,
                               ended=self._ended_by, waiting=self._waiting_for)
        if isinstance(looks, SuperviseResult):
            return looks
        if self.status == "waiting":  # every node answered: no longer waiting for one
            await self._save("watching")
        present = [m for m in self.group if has_container(looks.get(m.node), m.container)]
        running = started_of(self.group, looks)
        if len(running) == len(self.group):
            self.started = running
            self._emit(Happening.ADOPTED, said(SuperviseSaid.ADOPTED))
            return None
        if present:
            self._emit(Happening.SERVING, said(SuperviseSaid.NOT_WHOLE))
            await self.engine.stop(self.plan.cluster, self._progress, recipe=self.plan.recipe,
                                   hooks_for=self.hooks_for, disarm=False)
        else:
            self._emit(Happening.SERVING, said(SuperviseSaid.NOT_RUNNING))
        served = await self._serve()
        if isinstance(served, SuperviseResult):
            return served
        if not served.ok:  # kept as its code: each reader reads it in their words
            why = first_line(served.detail)
            failure = Failure("serve", served.failed_node or self.plan.head.name, why)
            return await self._give_up(Reason("serve_failed", {
                "node": served.failed_node, "step": served.failed_step, "detail": why}),
                failure)
        await self._healthy_again()
        return None

    async def _waiting_for(self, away: list[Failure], told: Text | None) -> Text:
        """Say which nodes it waits for, once for each set of them; what it said."""
        nodes = failures_said(away)
        if nodes != told:
            self._emit(Happening.WAITING, said(SuperviseSaid.WAITING_FOR, nodes=nodes),
                       failures=tuple(away))
            await self._save("waiting")
        return nodes

    # -- failures and restarts ---------------------------------------------------------
    async def _on_failure(self, failures: list[Failure]) -> SuperviseResult | None:
        now = time.time()
        decision = decide(self.policy, [r.at for r in self.restarts], now, self.ever_healthy)
        if isinstance(decision, GiveUp):
            return await self._give_up(decision.reason, failures[0])
        if decision.delay > 0:
            self._emit(Happening.WAITING, said(SuperviseSaid.BACKOFF, seconds=decision.delay))
            await self._save("backoff")
            deadline = time.monotonic() + decision.delay
            while (left := deadline - time.monotonic()) > 0:  # an operator may act meanwhile
                await asyncio.sleep(min(left, self.policy.interval))
                mark = await self._disarming_now()
                if mark is not None:
                    return await self._disarmed(mark)
        return await self._restart(failures[0])

    async def _restart(self, failure: Failure) -> SuperviseResult | None:
        mark = await self._disarming_now()
        if mark is not None:
            return await self._disarmed(mark)
        lines = await member_lines(self.plan, self.transports, self.group, failure.node)
        self.last_lines, self.last_lines_node = lines, failure.node
        event = RestartEvent(time.time(), failure)
        self.restarts = [*self.restarts, event][-HISTORY_KEPT:]
        window = restarts_within([r.at for r in self.restarts], event.at, self.policy.window)
        self._emit(Happening.RESTARTING, said(SuperviseSaid.RESTARTING,
                                              reason=failures_said([failure])),
                   failures=(failure,), count=window, of=self.policy.max_restarts)
        await self._save("restarting")
        await self.engine.stop(self.plan.cluster, self._progress, recipe=self.plan.recipe,
                               hooks_for=self.hooks_for, disarm=False)
        back = await memory_back(self.plan, self.transports, bound=self.policy.memory_wait,
                                 interval=self.policy.interval, timeout=self.timeout,
                                 disarming=self._disarming_now, waiting=self._memory_short)
        if isinstance(back, Mark):
            return await self._disarmed(back)
        if back is not None:  # a restart now would end in an out-of-memory
            self.restarts[-1] = replace(event, ok=False, detail=reason_said(back))
            return await self._give_up(back, failure)
        served = await self._serve()
        if isinstance(served, SuperviseResult):
            return served
        detail = "" if served.ok else first_line(served.detail)
        self.restarts[-1] = replace(event, ok=served.ok, detail=detail)
        if served.ok:
            self._emit(Happening.RESTARTED, said(SuperviseSaid.RESTARTED))
            await self._healthy_again()
        else:
            self._emit(Happening.RESTART_FAILED, said(SuperviseSaid.RESTART_FAILED,
                                                      detail=first_line(served.detail)))
            await self._save("watching")
        return None

    async def _memory_short(self, shorts: list[Short]) -> None:
        self._emit(Happening.WAITING, said(SuperviseSaid.MEMORY_WAIT, nodes=apart(
            [short_said(s, self.plan.recipe) for s in shorts])))
        await self._save("memory")

    async def _serve(self) -> ActionResult | SuperviseResult:
        """Serve the plan while watching the marks: an operator's stop cancels it."""
        task = asyncio.ensure_future(self.engine.serve(self.plan, self._progress,
                                                       keep_on_failure=True,
                                                       replan=self.replan))
        try:
            while True:
                done, _pending = await asyncio.wait({task}, timeout=self.policy.interval)
                mark = await self._disarming_now()
                if mark is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                    await self.engine.stop(self.plan.cluster, self._progress,
                                           recipe=self.plan.recipe, hooks_for=self.hooks_for,
                                           disarm=False)
                    return await self._disarmed(mark)
                if done:
                    if (result := task.result()).served is not None:
                        self._adopt(result.served)
                    return result
        finally:  # Ctrl+C: the serve's rollback and "left" rows come before the last word
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _healthy_again(self) -> None:
        self.ever_healthy, self.healthy_since = True, time.time()
        self.started = started_of(self.group, await self._looks())
        self.stall.reset()
        await self._save("watching")

    async def _give_up(self, reason: Reason, failure: Failure) -> SuperviseResult:
        # this failure's lines, not a restart's before
        lines = await member_lines(self.plan, self.transports, self.group, failure.node)
        if lines or failure.node != self.last_lines_node:
            self.last_lines, self.last_lines_node = lines, failure.node
        await self._save("gave_up", reason)
        self._emit(Happening.GAVE_UP, said(SuperviseSaid.GAVE_UP, recipe=self.plan.recipe,
                                           cluster=self.plan.cluster, reason=reason_said(reason)),
                   failures=(failure,), lines=self.last_lines)
        return SuperviseResult("gave_up", reason, failures=(failure,))

    async def _disarmed(self, mark: Mark) -> SuperviseResult:
        reason = mark.reason()
        await self._save("disarmed", reason)
        self._emit(Happening.DISARMED, reason_said(reason))
        return SuperviseResult("disarmed", reason, detail=mark_said(mark))

    # -- the nodes -----------------------------------------------------------------------
    async def _check(self) -> Check:
        found = await check(self.plan, self.transports, self.group, self.started, self.stall,
                            self.timeout, self.watched)
        if found.failures and self.plan.slurm is not None:
            ran_out = await time_limit_failure(self.engine.slurm_site(self.plan.cluster),
                                               self.plan.recipe, self.plan.head.name)
            found = replace(found, failures=[ran_out]) if ran_out else found
        return found

    async def _looks(self) -> dict[str, NodeLook]:
        found = await asyncio.gather(*(look(self.transports[n], self.timeout)
                                       for n in self.watched))
        return {n.node: n for n in found}

    async def _disarming_now(self) -> Mark | None:
        looks = await self._looks()
        return self._disarming({n: x.marks for n, x in looks.items() if x.marks is not None})

    def _disarming(self, marks: dict[str, list[Mark]]) -> Mark | None:
        return self.marks.disarming(marks, self.plan.cluster, self.plan.recipe)

    async def _ended_by(self, marks: dict[str, list[Mark]]) -> SuperviseResult | None:
        mark = self._disarming(marks)
        if mark is not None:
            return await self._disarmed(mark)
        if self.lost is not False:
            holder = self.lost if isinstance(self.lost, Lease) else None
            reason = Reason("lease_lost", {"holder": holder.holder if holder else "?"})
            self._emit(Happening.LOST, reason_said(reason))
            return SuperviseResult("lost", reason, holder=holder)
        return None

    async def _heartbeat(self) -> None:
        self.lost = await remote.heartbeat(self.home, self.lease.token, self.policy.heartbeat)

    async def _save(self, status: str, reason: Reason | None = None) -> None:
        self.status = status
        record = Record(self.plan.cluster, self.plan.recipe, self.lease.holder, self.lease.mode,
                        status, self.policy.interval, self.policy.window,
                        self.policy.max_restarts, self.since, time.time(),
                        tuple(self.restarts), reason, self.last_lines, self.last_lines_node,
                        self.healthy_since)
        with contextlib.suppress(NodeError):
            await remote.write_record(self.home, record)

    def _progress(self, event: Progress) -> None:
        self._emit(Happening.STEP, progress=event)

    def _emit(self, kind: Happening, text: Text = "", **values) -> None:
        self.emit_to(SuperviseEvent(kind, text, **values))

