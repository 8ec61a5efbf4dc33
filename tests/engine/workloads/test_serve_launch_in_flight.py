"""Ctrl+C while a ``docker run`` is under way on a node: the node carries on with the
command its client left, so a container that is not there yet when the serve looks may
appear a moment later. The serve names it as left (with the stop that removes it), never
reads "not there yet" as "not there".

The node's docker client (tests/hosts/standin/docker, the real client behind a recorder)
holds each ``docker run`` until the test lets it go: the launch is in flight for exactly as
long as the test needs, however loaded the machine (no timing decides it)."""

from __future__ import annotations

import asyncio
import contextlib

from engine.services.service_support import service, services_only
from lookalike import Why
from polling import eventually, eventually_async
from site_support import Recorder, toy_recipe

from sparktui.engine.api import Step, StepState

# A look-alike, not the real vLLM (tests/lookalike.py): a 2-node group whose launch is held.
LOOKALIKE = (Why.FAULT, Why.MULTI_NODE)

CONTAINER = "sparktui-toy"


def _interrupted_at_the_hold(s, plan, held, rec: Recorder) -> None:
    """Serve ``plan``, Ctrl+C (a cancel, as asyncio.run does on SIGINT) once a ``docker
    run`` waits at ``held``'s hold, then let the node carry on."""
    held.hold_docker_run()

    async def go() -> None:
        engine = s.engine()
        try:
            serving = asyncio.ensure_future(engine.serve(plan, rec))
            await eventually_async(lambda: held.docker_runs_held() or serving.done(), 120,
                                   "the head's docker run at the hold",
                                   explain=lambda: str(rec.events))
            assert not serving.done(), rec.events
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
        finally:
            await engine.close()

    try:
        asyncio.run(go())
        assert held.containers() == {}  # not there when the serve looked
    finally:
        held.release_docker_run()


def test_a_container_its_launch_had_not_made_yet_is_named_as_left(site):
    s = site(2)
    s.recipe("toy", toy_recipe())
    held = s.hosts.node("node1")  # the head: launched first
    rec = Recorder()
    _interrupted_at_the_hold(s, s.plan("toy"), held, rec)
    # the node carries on: the container the serve could not see appears
    eventually(lambda: CONTAINER in held.containers(), 120, "the held launch's container")
    left = {(e.node, str(e.detail)) for e in rec.events if e.step == Step.LEFT}
    assert ("node1", CONTAINER) in left, rec.events
    under_way = [e for e in rec.events if e.step == Step.LAUNCH and e.state == StepState.WARN]
    assert under_way and CONTAINER in str(under_way[0].detail), rec.events
    assert s.hosts.node("node2").containers() == {}  # never launched: nothing to name


def test_a_service_launch_under_way_is_named_too(site):
    s = site(2)
    n1, n2 = s.loaded.config.clusters[0].ranked
    held = s.hosts.node("node2")
    store = service("store", [n1, n2], ["sleep", "600"])
    rec = Recorder()
    _interrupted_at_the_hold(s, services_only("test", [store]), held, rec)
    eventually(lambda: "sparktui-svc-store-1" in held.containers(), 120,
               "the held service's container")
    left = {(e.node, str(e.detail)) for e in rec.events if e.step == Step.LEFT}
    assert ("node2", "sparktui-svc-store-1") in left, rec.events
    # node1's launch, not held, may have been under way too: whatever is on the nodes
    # now was either named or removed by the interrupted serve's rollback
    for node in ("node1", "node2"):
        for name in s.hosts.node(node).containers():
            assert (node, name) in left, "\n".join(map(str, rec.events))
