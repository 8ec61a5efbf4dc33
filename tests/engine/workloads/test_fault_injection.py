"""Every step of serve, stop and restart broken in turn (issue 29): Ctrl+C, a node's sshd
killed with its connections, its dockerd killed. After each, the node is brought back
and the test reads what really is on the cluster: nothing sparktui started may be there
without the action having named it (a ``left`` row, or a failed stop of that node), and
no message may claim absence ("nothing", "not serving", ...) while a node did not answer.

The breaking points are the events of a clean run of the same action (each step of each
node, first event), so a step added to an action is broken here too without a change to
this file. Real sshd and dockerd per node (tests/hosts); the cluster is the test's own."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from engine.supervise.supervise_support import TOP as SUPERVISE_TOP
from engine.supervise.supervise_support import sparks
from fault_support import (
    ABSENCE,
    Fault,
    Injector,
    Point,
    absence_claims,
    points,
    run_with,
    sparktui_workloads,
)
from lookalike import Why
from site_support import Recorder, toy_recipe

from sparktui.engine.api import ActionResult, Step
from sparktui.engine.supervise.events import Happening, SuperviseEvent
from sparktui.engine.workloads.restart import Restarted, restart

# A look-alike, not the real vLLM (tests/lookalike.py): every step of serve/stop/restart broken in
# turn: dozens of starts; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

NODES = ("node1", "node2")
HOOKS = ('before_serve = [{ command = "true", on_failure = "abort" }]\n'
         'after_stop = [{ command = "true", on_failure = "warn" }]')
SERVE_STEPS = {Step.PREFLIGHT, Step.FIT, Step.BEFORE_SERVE, Step.LAUNCH, Step.READY}
STOP_STEPS = {Step.STOP, Step.AFTER_STOP}


def _site(fresh_site):
    s = fresh_site(2)
    s.recipe("toy", toy_recipe(extra=HOOKS, env='STANDIN_READY_AFTER = "1"'))
    return s


def _victim(at: Point) -> str:
    return at[1] or "node2"


def _clean_events(s, *actions: str) -> list:
    """The events of a clean serve (and stop), to break in at."""
    rec = Recorder()

    async def go() -> None:
        engine = s.engine()
        try:
            if "serve" in actions:
                assert (await engine.serve(s.plan("toy"), rec)).ok, rec.events
            if "stop" in actions:
                assert (await engine.stop("test", rec)).ok, rec.events
        finally:
            await engine.close()

    asyncio.run(go())
    return rec.events


def _reset(s) -> None:
    for n in NODES:
        s.hosts.node(n).remove_containers()


def _serve_up(s) -> None:
    """The group up for the next point. A ``docker run`` the previous point's cancelled
    action had already sent over SSH may still create its container after ``_reset``
    (the node carries on with a command whose client went away): such a straggler makes
    the serve's preflight refuse ("already exists"), and is removed before the serve is
    tried again. Each try ends a command in flight, so this ends."""
    for _ in range(5):
        rec = Recorder()

        async def go(rec=rec) -> ActionResult:
            engine = s.engine()
            try:
                return await engine.serve(s.plan("toy"), rec)
            finally:
                await engine.close()

        result = asyncio.run(go())
        if result.ok:
            break
        assert result.failed_step == Step.PREFLIGHT and "exists" in str(result.detail), \
            rec.events
        _reset(s)
    assert {n for n, _ in sparktui_workloads(s, NODES)} == set(NODES)


def _run(s, at: Point, fault: Fault, action) -> tuple[Injector, ActionResult | None]:
    injector = Injector(s, at, fault, _victim(at))

    async def go() -> ActionResult | None:
        engine = s.engine()
        try:
            done = await run_with(injector, lambda inj: action(engine, inj))
            return done.result() if isinstance(done, Restarted) else done  # type: ignore
        finally:
            await engine.close()

    result = asyncio.run(go())
    injector.recover()
    assert injector.fired, f"never reached {at}:\n{injector.story()}"
    return injector, result


def _check(s, at: Point, fault: Fault, injector: Injector, result: ActionResult | None,
           stopping: bool) -> None:
    where = f"{fault.value} at {at}"
    claims = absence_claims(injector, result)
    assert not claims, f"{where}: absence claimed beside a broken node: {claims}\n" \
                       f"{injector.story()}"
    if result is not None and result.ok:
        return  # it went through: what runs is what it served (or nothing, stopped)
    on_cluster = sparktui_workloads(s, NODES)
    named = injector.named_left()
    if stopping:  # a stop names the nodes it could not stop: what runs there is said
        named |= {(n, c) for n, c in on_cluster if n in injector.failed_nodes()}
    unnamed = on_cluster - named
    assert not unnamed, f"{where}: left on the cluster without a word: {sorted(unnamed)}\n" \
                        f"{injector.story()}"


@pytest.mark.parametrize("fault", list(Fault), ids=[f.value for f in Fault])
def test_a_serve_broken_at_any_step_names_all_it_leaves(fresh_site, fault):
    s = _site(fresh_site)
    breaks = points(_clean_events(s, "serve", "stop"), SERVE_STEPS)
    assert len(breaks) >= 8, breaks  # preflight, fit, hooks, launch x2 nodes, ready
    for at in breaks:
        injector, result = _run(s, at, fault, lambda e, inj: e.serve(s.plan("toy"), inj))
        _check(s, at, fault, injector, result, stopping=False)
        _reset(s)


@pytest.mark.parametrize("fault", list(Fault), ids=[f.value for f in Fault])
def test_a_stop_broken_at_any_step_names_what_still_runs(fresh_site, fault):
    s = _site(fresh_site)
    breaks = points(_clean_events(s, "serve", "stop"), STOP_STEPS)
    assert len(breaks) >= 4, breaks  # stop and after_stop on each node
    for at in breaks:
        _serve_up(s)
        injector, result = _run(s, at, fault, lambda e, inj: e.stop("test", inj))
        _check(s, at, fault, injector, result, stopping=True)
        _reset(s)


@pytest.mark.parametrize("fault", list(Fault), ids=[f.value for f in Fault])
def test_a_restart_broken_at_any_step_names_what_it_leaves(fresh_site, fault):
    s = _site(fresh_site)
    events = _clean_events(s, "serve", "stop")
    breaks = points(events, STOP_STEPS) + points(events, {Step.LAUNCH, Step.READY})
    for at in breaks:
        _serve_up(s)
        injector, result = _run(s, at, fault, lambda e, inj: restart(e, s.plan("toy"), inj))
        _check(s, at, fault, injector, result, stopping=at[0] in STOP_STEPS)
        _reset(s)


@pytest.mark.parametrize("fault", list(Fault), ids=[f.value for f in Fault])
def test_a_supervisors_restart_broken_at_any_step_ends_cleanly_and_claims_no_absence(
        fresh_site, fault):
    """The supervisor restarts the group (its worker killed) and is broken at each step of
    that restart; it is then ended with Ctrl+C at its next word (Ctrl+C by design leaves
    the group as it is, and says so). Nothing may escape as an exception, no message may
    claim absence beside the broken node, and nothing but the group's own containers may
    be on the cluster: a restart broken half-way makes no second copy."""
    s = sparks(fresh_site(2, top=SUPERVISE_TOP))
    s.recipe("toy", toy_recipe(extra=HOOKS, env='STANDIN_READY_AFTER = "1"'))
    events = _clean_events(s, "serve", "stop")
    breaks = points(events, STOP_STEPS) + points(events, {Step.LAUNCH, Step.READY})
    for at in breaks:
        _serve_up(s)
        injector = Injector(s, at, fault, _victim(at))
        said: list[SuperviseEvent] = []

        def sink(event: SuperviseEvent, injector=injector, said=said) -> None:
            said.append(event)
            if event.kind is Happening.HEALTHY and not injector.fired:  # seen healthy once
                s.hosts.node("node2").docker("kill", "sparktui-toy")  # the restart's cause
            elif event.progress is not None:
                injector(event.progress)
            elif injector.fired and event.kind is not Happening.INTERRUPTED:
                assert injector.task is not None
                injector.task.cancel()  # the operator's Ctrl+C once the supervisor spoke

        async def go(injector=injector, sink=sink) -> None:
            engine = s.engine()
            try:
                task = asyncio.ensure_future(engine.supervise(s.plan("toy"), sink))
                injector.task = task
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            finally:
                await engine.close()

        asyncio.run(go())
        injector.recover()
        where = f"{fault.value} at {at}"
        assert injector.fired, f"{where}: never reached: {[e.kind for e in said]}"
        assert said[-1].kind is Happening.INTERRUPTED, (where, said[-1])
        # Broken mid-restart, the group is not known to run: the last word never says so.
        last = str(said[-1].text)  # a sentence as data: its words (English here)
        assert "keeps running" not in last, (where, last)
        if fault is Fault.CTRL_C:
            assert "during a restart" in last, (where, last)
        claims = absence_claims(injector, None) + [
            str(e.text) for e in said if injector.broke_a_node and ABSENCE.search(str(e.text))]
        assert not claims, f"{where}: absence claimed beside a broken node: {claims}"
        names = {c for _, c in sparktui_workloads(s, NODES)}
        assert names <= {"sparktui-toy"}, f"{where}: {names}\n{injector.story()}"
        _reset(s)
        # A lease the head could not be told to free (its sshd dead at the Ctrl+C) expires
        # after its TTL; the next point does not wait for that.
        (s.hosts.node("node1").home / ".local/state/sparktui/supervise/lease").unlink(
            missing_ok=True)
