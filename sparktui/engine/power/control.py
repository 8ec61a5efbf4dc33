"""Power on, off and switch through Home Assistant, with SSH as the guard.

Off: every node gets the ``power_off_command`` over SSH (concurrently); the engine
then waits until each stops answering SSH (TCP connect + banner, two misses in a row),
waits ``shutdown_delay_seconds``, and only then turns off the entities of the nodes
that went down and the cluster's extra entities. Just before an entity goes off every
node it powers is probed again: an entity whose node still answers SSH is never
turned off. An extra entity stays on while any node of another cluster listing it
still answers SSH, or while any node of this action did not go down.

On: extra entities first, then the nodes' entities (each confirmed by reading its
state back), then every node is awaited until it answers SSH.

Nothing is switched when Home Assistant is unreachable, refuses the token or does
not know one of the entities: that is checked before the first node is touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from sparktui.config.models import Config, Node
from sparktui.engine.deadline import within
from sparktui.engine.power.codes import PowerSaid as P
from sparktui.engine.power.homeassistant import HomeAssistantClient, HomeAssistantError
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.engine.supervise.disarm import disarm
from sparktui.engine.supervise.remote import new_mark
from sparktui.errors import fail
from sparktui.plan.power import PowerPlan
from sparktui.said import Layout, Said, Text, joined, said
from sparktui.scrub import scrub
from sparktui.steps import Outcome, Step, StepState

POLL_SECONDS = 1.0
"""How often a node is probed while waiting for it to go down or come up."""
DOWN_STREAK = 2
"""Consecutive probes without an SSH answer that make a node "down"."""


class PowerEngine(Protocol):
    config: Config

    def transport(self, node: Node) -> Transport: ...
    async def forget(self, node: Node) -> None: ...


async def answers_ssh(host: str, port: int, timeout: float) -> bool:
    """True when something at host:port sends an SSH banner within ``timeout``."""
    try:
        reader, writer = await within(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError):
        return False
    try:
        async with asyncio.timeout(timeout):
            for _ in range(8):  # RFC 4253 allows text lines before the version line
                line = await reader.readline()
                if not line:
                    return False
                if line.startswith(b"SSH-"):
                    writer.write(b"SSH-2.0-sparktui-probe\r\n")  # polite: a quiet sshd log
                    return True
            return False
    except (OSError, TimeoutError, ValueError):
        return False
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


class PowerRun:
    """Carry out one ``PowerPlan``; ``run()`` returns what was and was not done."""

    def __init__(self, engine: PowerEngine, plan: PowerPlan, progress: ProgressSink,
                 client: Callable[[], HomeAssistantClient] | None = None):
        self.engine = engine
        self.config = engine.config
        self.plan = plan
        self.say = ProgressLog(progress, redact=scrub)
        self._client = client
        self.outcomes: list[Outcome] = []
        self.ha: HomeAssistantClient | None = None

    # -- bookkeeping -----------------------------------------------------------------
    def record(self, action: Step, target: str, done: bool, detail: Text = "",
               node: str | None = None) -> None:
        detail = detail.redacted(scrub) if isinstance(detail, Said) else scrub(detail)
        self.outcomes.append(Outcome(action, target, done, detail, node))

    def _result(self, detail: Text = "") -> ActionResult:
        detail = detail.redacted(scrub) if isinstance(detail, Said) else scrub(detail)
        missed = [o for o in self.outcomes if not o.done]
        if not missed and not detail:
            return ActionResult(True, steps=self.say.events, outcomes=self.outcomes)
        first = missed[0] if missed else None
        return ActionResult(False, first.node or first.target if first else None,
                            first.action if first else Step.PREFLIGHT,
                            detail or (first.detail if first else ""), self.say.events,
                            self.outcomes)

    @property
    def _probe_timeout(self) -> float:
        return min(self.config.connect_timeout_seconds, 5.0)

    async def _answers(self, node: Node) -> bool:
        return await answers_ssh(node.ssh_ip, node.ssh_port, self._probe_timeout)

    # -- the action ------------------------------------------------------------------
    async def run(self) -> ActionResult:
        settings = self.config.home_assistant
        if settings is None:
            raise fail("no_home_assistant")
        make = self._client or (lambda: HomeAssistantClient(settings))
        try:
            client = make()
        except HomeAssistantError as exc:
            self.say(Step.PREFLIGHT, None, StepState.FAILED, exc.said)
            self._nothing_done(exc.said)
            return self._result(exc.said)
        async with client as ha:
            self.ha = ha
            problem = await self._preflight()
            if problem:
                self._nothing_done(problem)
                return self._result(problem)
            if self.plan.down or self.plan.down_extras:
                await self._power_down()
            if self.plan.up or self.plan.up_extras:
                await self._power_up()
        return self._result()

    async def _preflight(self) -> Text | None:
        """Home Assistant answers, takes the token and knows every entity; else why not."""
        assert self.ha is not None
        self.say(Step.PREFLIGHT, None, StepState.STARTED, said(P.HA_AT, url=self.ha.url))
        try:
            await self.ha.check()
            states = await asyncio.gather(*(self.ha.state(e) for e in self.plan.entities),
                                          return_exceptions=True)
        except HomeAssistantError as exc:
            self.say(Step.PREFLIGHT, None, StepState.FAILED, exc.said)
            return exc.said
        errors = [s for s in states if isinstance(s, BaseException)]
        for error in errors:
            if not isinstance(error, HomeAssistantError):
                raise error
            self.say(Step.PREFLIGHT, None, StepState.FAILED, error.said, entity=error.entity)
        if errors:
            return _apart([e.said for e in errors if isinstance(e, HomeAssistantError)])
        shown = ", ".join(f"{e} {s}" for e, s in zip(self.plan.entities, states, strict=True))
        self.say(Step.PREFLIGHT, None, StepState.OK, shown or said(P.NO_ENTITIES))
        return None

    def _nothing_done(self, reason: Text) -> None:
        why = said(P.NOT_ATTEMPTED, reason=reason)
        for n in self.plan.down:
            self.record(Step.SHUTDOWN, n.name, False, why, n.name)
        for e in [*self.plan.down_entities, *self.plan.down_extras]:
            self.record(Step.POWER_OFF, e, False, why)
        for e in self.plan.up_entities:
            self.record(Step.POWER_ON, e, False, why)
        for n in self.plan.up:
            self.record(Step.BOOT, n.name, False, why, n.name)

    # -- off -------------------------------------------------------------------------
    async def _power_down(self) -> None:
        # Before anything goes down, whoever supervises a group on these nodes ends.
        down = {n.name for n in self.plan.down}
        heads = [c.ranked[0] for c in self.config.clusters
                 if any(n.name in down for n in c.nodes) and not c.ranked[0].local]
        await disarm([self.engine.transport(n) for n in self.plan.down if not n.local],
                     [self.engine.transport(n) for n in heads], new_mark("power_off"),
                     lambda p: self.say(p.step, p.node, p.state, p.detail),
                     timeout=self.config.command_timeout_seconds,
                     read_timeout=self.config.health_timeout_seconds)
        went = await asyncio.gather(*(self._shut_down(n) for n in self.plan.down))
        down = {n.name for n, ok in zip(self.plan.down, went, strict=True) if ok}
        stuck = [n.name for n in self.plan.down if n.name not in down]
        cuts: list[tuple[str, Callable[[], Awaitable[None]]]] = []
        owners = {n.entity: n.name for n in self.plan.down if n.entity}
        for entity in self.plan.down_entities:
            users = [n for n in self.plan.down if n.entity == entity]
            up = [n.name for n in users if n.name not in down]
            if up:
                self._kept(entity, owners[entity], said(P.NOT_DOWN, nodes=up))
            else:
                cuts.append((entity, self._cutter(entity, owners[entity])))
        extra_cuts = []
        for extra in self.plan.down_extras:
            if stuck:
                self._kept(extra, None, said(P.NOT_DOWN, nodes=stuck))
            else:
                extra_cuts.append((extra, self._cutter(extra, None)))
        if not cuts and not extra_cuts:
            return
        assert self.config.home_assistant is not None
        delay = self.config.home_assistant.shutdown_delay_seconds
        if delay:
            self.say(Step.DELAY, None, StepState.WAITING, said(P.DELAY, seconds=delay))
            await asyncio.sleep(delay)
            self.say(Step.DELAY, None, StepState.OK)
        await asyncio.gather(*(cut() for _, cut in cuts))
        await asyncio.gather(*(cut() for _, cut in extra_cuts))

    def _kept(self, entity: str, node: str | None, reason: Said) -> None:
        detail = said(P.KEPT_ON, reason=reason)
        self.say(Step.POWER_OFF, node, StepState.FAILED, detail, entity=entity)
        self.record(Step.POWER_OFF, entity, False, detail, node)

    async def _shut_down(self, node: Node) -> bool:
        """Send the power-off command and wait until the node stops answering SSH."""
        if node.local:
            never = said(P.LOCAL_NEVER_OFF)
            self.say(Step.SHUTDOWN, node.name, StepState.FAILED, never)
            self.record(Step.SHUTDOWN, node.name, False, never, node.name)
            return False
        command = self.config.power_off_command or []
        if await self._answers(node):
            self.say(Step.SHUTDOWN, node.name, StepState.STARTED, " ".join(command))
            sent, detail = await self._send(node, argv_command(command))
            if not sent:
                self.say(Step.SHUTDOWN, node.name, StepState.FAILED, detail)
                self.record(Step.SHUTDOWN, node.name, False, detail, node.name)
                return False
            self.say(Step.SHUTDOWN, node.name, StepState.OK, detail)
        else:
            self.say(Step.SHUTDOWN, node.name, StepState.OK, said(P.ALREADY_DOWN))
        limit = self.config.shutdown_timeout_seconds
        self.say(Step.HALT, node.name, StepState.WAITING, said(P.UNTIL_DOWN, seconds=limit))
        took = await self._wait(node, up=False, limit=limit)
        await self.engine.forget(node)
        if took is None:
            detail = said(P.STILL_ANSWERS, seconds=limit)
            self.say(Step.HALT, node.name, StepState.FAILED, detail)
            self.record(Step.SHUTDOWN, node.name, False, detail, node.name)
            return False
        detail = said(P.STOPPED_ANSWERING, seconds=took)
        self.say(Step.HALT, node.name, StepState.OK, detail)
        self.record(Step.SHUTDOWN, node.name, True, detail, node.name)
        return True

    async def _send(self, node: Node, command: str) -> tuple[bool, Text]:
        try:
            result = await self.engine.transport(node).run(
                command, timeout=self.config.command_timeout_seconds)
        except NodeError as exc:
            if exc.reason in ("connection lost", "timeout"):
                return True, said(P.SENT_DROPPED, reason=said(exc.reason))
            return False, exc.said
        if result.exit_code in (0, 255):  # 255: the session ended without an exit status
            return True, said(P.SENT)
        why = (result.stderr.strip() or result.stdout.strip())[:200]
        return False, said(P.OFF_FAILED, code=result.exit_code, why=why)

    async def _wait(self, node: Node, *, up: bool, limit: float) -> float | None:
        """Seconds until the node answers SSH (up) or stopped answering; None: deadline."""
        start = time.monotonic()
        streak = 0
        while True:
            answers = await self._answers(node)
            if up and answers:
                return time.monotonic() - start
            streak = 0 if answers else streak + 1
            if not up and streak >= DOWN_STREAK:
                return time.monotonic() - start
            if time.monotonic() - start >= limit:
                return None
            await asyncio.sleep(POLL_SECONDS)

    def _cutter(self, entity: str, node: str | None) -> Callable[[], Awaitable[None]]:
        async def cut() -> None:
            still = await self._still_up(entity, node)
            if still:
                self._kept(entity, node, said(P.STILL_UP, nodes=still))
                return
            await self._switch(entity, node, on=False)
        return cut

    async def _still_up(self, entity: str, node: str | None) -> list[str]:
        """Nodes that need ``entity`` and answer SSH right now (probed just before the cut).

        A node's entity: every node of the config it powers. An extra: the nodes of this
        action, and those of every other cluster that lists it (except the source).
        """
        users: dict[str, Node] = {}
        for cluster in self.config.clusters:
            for n in cluster.nodes:
                powers_it = node is not None and n.entity == entity
                needs_it = (node is None and entity in cluster.extra_entities
                            and cluster.name != self.plan.source)
                if powers_it or needs_it:
                    users[n.name] = n
        for n in self.plan.down:
            if node is None or n.entity == entity:
                users[n.name] = n
        names = [n.name for n in users.values() if not n.local]
        answers = await asyncio.gather(*(self._answers(users[name]) for name in names))
        return [name for name, up in zip(names, answers, strict=True) if up]

    async def _switch(self, entity: str, node: str | None, *, on: bool) -> bool:
        assert self.ha is not None
        step = Step.POWER_ON if on else Step.POWER_OFF
        self.say(step, node, StepState.STARTED, entity, entity=entity)
        try:
            await self.ha.set_and_confirm(entity, on)
        except HomeAssistantError as exc:
            self.say(step, node, StepState.FAILED, exc.said, entity=entity)
            self.record(step, entity, False, exc.said, node)
            return False
        detail = said(P.ENTITY_ON if on else P.ENTITY_OFF, entity=entity)
        self.say(step, node, StepState.OK, detail, entity=entity)
        self.record(step, entity, True, detail, node)
        return True

    # -- on --------------------------------------------------------------------------
    async def _power_up(self) -> None:
        extras = self.plan.up_extras
        switched = await asyncio.gather(*(self._switch(x, None, on=True) for x in extras))
        powered = dict(zip(extras, switched, strict=True))
        owners: dict[str, str] = {}
        for n in self.plan.up:
            if n.entity and n.entity not in powered:
                owners.setdefault(n.entity, n.name)
        switched = await asyncio.gather(*(self._switch(e, owner, on=True)
                                          for e, owner in owners.items()))
        powered.update(zip(owners, switched, strict=True))
        await asyncio.gather(*(self._boot(n, powered.get(n.entity or "", True))
                               for n in self.plan.up))

    async def _boot(self, node: Node, powered: bool) -> None:
        """Wait until the node answers SSH; without power (or entity) only look once."""
        if node.local:
            self.record(Step.BOOT, node.name, True, said(P.THIS_MACHINE), node.name)
            return
        await self.engine.forget(node)  # connections from before the power cut are dead
        if not powered or not node.entity:
            if await self._answers(node):
                self.say(Step.BOOT, node.name, StepState.OK, said(P.ANSWERS))
                self.record(Step.BOOT, node.name, True, said(P.ANSWERS), node.name)
                return
            detail = said(P.ENTITY_NOT_ON if node.entity else P.NO_ENTITY)
            self.say(Step.BOOT, node.name, StepState.FAILED, detail)
            self.record(Step.BOOT, node.name, False, detail, node.name)
            return
        limit = self.config.boot_timeout_seconds
        self.say(Step.BOOT, node.name, StepState.WAITING, said(P.UNTIL_UP, seconds=limit))
        took = await self._wait(node, up=True, limit=limit)
        if took is None:
            detail = said(P.NO_ANSWER_AFTER, seconds=limit)
            self.say(Step.BOOT, node.name, StepState.FAILED, detail)
            self.record(Step.BOOT, node.name, False, detail, node.name)
            return
        detail = said(P.ANSWERS_AFTER, seconds=took)
        self.say(Step.BOOT, node.name, StepState.OK, detail)
        self.record(Step.BOOT, node.name, True, detail, node.name)


def _apart(items: list[Said]) -> Said:
    """Several reasons in one, ``; `` between them."""
    return items[0] if len(items) == 1 else joined(Layout.SEMICOLON, items[0], _apart(items[1:]))


async def run_power(engine: PowerEngine, plan: PowerPlan,
                    progress: ProgressSink) -> ActionResult:
    return await PowerRun(engine, plan, progress).run()


__all__ = ["PowerRun", "answers_ssh", "run_power"]
