"""Keep the cluster's router (sparktui.plan.router) in step with what serves there.

After a serve or a stop, the router's workers are made again from what runs (the heads
found by their labels, ready and giving their model names on /v1/models) and the router
is started afresh with them, or removed when nothing serves. A failure here is a warning
naming the node: it never fails nor hides the serve or stop it follows.
"""

from __future__ import annotations

import asyncio
import time

from sparktui import untrusted_json
from sparktui.config.base import Secret
from sparktui.config.models import Node
from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.failure import failure
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import Transport, argv_command
from sparktui.engine.router_key import RouterKeyError, control_key, place_keys
from sparktui.engine.router_names import say_shared
from sparktui.engine.status import ClusterHealth, RouterStatus
from sparktui.i18n import N_
from sparktui.plan.router import CONTAINER, RUNTIME, Backend, RouterPlan, launch_for
from sparktui.said import Code, said
from sparktui.steps import Step, StepState

POLL_SECONDS = 0.5
SERVED_LOOKS = 5
"""Looks again (at most) before the router is made: for the head a serve just saw ready,
or a head whose API timed out."""
_DRIVER = driver_for(RUNTIME)


class RouterSaid(Code):
    NOT_ANSWERING = N_("not answering on port {port}")
    NOT_ANSWERING_WHY = N_("not answering on port {port} ({error})")
    LEFT_OUT = N_("its recipes are left out of the router: {error}")
    NOT_YET = N_("{recipe} does not answer /v1/models yet: left out of the router")
    KEPT_UNREAD = N_("{recipe} did not answer in time: kept in the router, its model names "
                     "unread")
    NOT_UPDATED = N_("the router was not updated: {error}")
    REMOVED = N_("nothing serves: the router is removed")
    KEPT = N_("the router is left as it is: what runs on {nodes} is not known (no answer)")
    NOT_UP = N_("the router did not come up at {address} ({state}): {error}")
    FIRST_NAME_ONLY = N_("{recipe} also serves {model}: the router routes it by its first name "
                         "only, {first}")


async def router_status(t: Transport, plan: RouterPlan, timeout: float,
                        key: Secret | None = None) -> RouterStatus:
    """Its container's state, then (running) the models its /v1/models lists (asked with
    the client key, as any client of the router asks)."""
    try:
        state = await _DRIVER.state(t, CONTAINER, timeout)
    except Exception as exc:  # the node did not answer: unknown, never "no router"
        return RouterStatus(plan.node, plan.address, "unknown", error=failure(exc))
    if state.status != "running":
        return RouterStatus(plan.node, plan.address, state.status)
    try:
        answer = await http_get(t, plan.host, plan.port, "/v1/models", timeout,
                                bearer=key.get_secret_value() if key else None)
        # sorted: SMG lists its workers' models in no set order
        listed = untrusted_json.loads(answer.body).get("data", [])
        models = sorted(str(m.get("id", "")) for m in listed)
    except Exception as exc:  # refused, timed out, an SSH channel error, not JSON
        return RouterStatus(plan.node, plan.address, "running",
                            error=said(RouterSaid.NOT_ANSWERING_WHY, port=plan.port,
                                       error=failure(exc)) if str(exc) else
                            said(RouterSaid.NOT_ANSWERING, port=plan.port))
    ok = answer.status == 200
    return RouterStatus(plan.node, plan.address, "running", models if ok else [], ok,
                        None if ok else f"HTTP {answer.status}")


def settled(health: ClusterHealth, served: str | None) -> bool:
    """Nothing to look at again before the router is made: the recipe a serve just saw
    answer (``served``) has a head giving its names, and no head's API timed out (a busy
    head: whether it serves is not known)."""
    seen = served is None or any(e.recipe == served and e.ready and e.models
                                 for e in health.engines)
    return seen and not any(e.timed_out for e in health.engines)


def backends(health: ClusterHealth, nodes: dict[str, Node],
             log: ProgressLog) -> list[Backend]:
    """Every model a ready head serves, and (its model "") each head whose API did not
    answer in time; what cannot be seen is said, never dropped silently (a node that did
    not answer, a head still loading)."""
    found: list[Backend] = []
    for row in health.nodes:
        if not row.known:
            log(Step.ROUTER, row.node, StepState.WARN,
                said(RouterSaid.LEFT_OUT, error=row.error or row.docker_error or "-"))
            continue
        node = nodes.get(row.node)
        for e in row.engines:
            if node is not None and e.timed_out and e.port:
                # busy, maybe the busiest: kept as a worker, its names unread (SMG asks it)
                log(Step.ROUTER, row.node, StepState.WARN,
                    said(RouterSaid.KEPT_UNREAD, recipe=e.recipe or "-"))
                found.append(Backend("", e.recipe or "", f"http://{node.ssh_ip}:{e.port}",
                                     row.node))
                continue
            if node is None or not e.ready or not e.models:
                log(Step.ROUTER, row.node, StepState.WARN,
                    said(RouterSaid.NOT_YET, recipe=e.recipe or "-"))
                continue
            worker = f"http://{node.ssh_ip}:{e.port}"
            found += [Backend(m, e.recipe or "", worker, row.node) for m in e.models if m]
    return found


async def refresh_router(plan: RouterPlan, health: ClusterHealth, nodes: dict[str, Node],
                         t: Transport, log: ProgressLog, timeout: float,
                         key: Secret) -> None:
    """Never raises: every failure is a warning on the router's node."""
    try:
        await _refresh(plan, health, nodes, t, log, timeout, key)
    except Exception as exc:  # a router failure never fails the action
        why = exc.said if isinstance(exc, RouterKeyError) else failure(exc)
        log(Step.ROUTER, plan.node, StepState.WARN, said(RouterSaid.NOT_UPDATED, error=why))


async def _refresh(plan: RouterPlan, health: ClusterHealth, nodes: dict[str, Node],
                   t: Transport, log: ProgressLog, timeout: float, key: Secret) -> None:
    found = backends(health, nodes, log)
    removal = _DRIVER.runtime.removal(CONTAINER, 5)
    if not found and health.unread:
        # a node that did not answer may serve: not seeing it is not "nothing serves"
        log(Step.ROUTER, plan.node, StepState.WARN,
            said(RouterSaid.KEPT, nodes=", ".join(health.unread)))
        return
    if not found:
        await t.run(removal.remove + " >/dev/null 2>&1; true", timeout=timeout)
        log(Step.ROUTER, plan.node, StepState.OK, said(RouterSaid.REMOVED))
        return
    log(Step.ROUTER, plan.node, StepState.STARTED, plan.address)
    await t.run(removal.remove + " >/dev/null 2>&1; true", timeout=timeout)
    await place_keys(t, plan, key, control_key(), timeout)
    started = await t.run(argv_command(_DRIVER.stamp(launch_for(plan, found))),
                          timeout=max(timeout, 60.0))
    if started.exit_code != 0:
        raise RuntimeError((started.stderr or started.stdout).strip()[-300:]
                           or f"exit {started.exit_code}")
    wanted = _listed(found, plan.node, log)
    say_shared(found, plan, log)
    status = await _ready(plan, t, wanted, timeout, key)
    if status.ready and set(wanted) <= set(status.models):
        log(Step.ROUTER, plan.node, StepState.OK,
            f"{plan.address}: {', '.join(wanted)}")
        return
    last = await t.run(_DRIVER.runtime.logs_command(CONTAINER, 5, False), timeout=timeout)
    tail = " | ".join(line for line in last.stdout.splitlines()[-5:] if line.strip())
    log(Step.ROUTER, plan.node, StepState.WARN,
        said(RouterSaid.NOT_UP, address=plan.address, state=status.state,
             error=status.error or tail or "-"))


def _listed(found: list[Backend], node: str, log: ProgressLog) -> list[str]:
    """The names the router will list: each head's first (SMG takes a worker's model
    from the first entry of its /v1/models); the others are said, never waited for."""
    first: dict[str, str] = {}
    found = [b for b in found if b.model]  # a head kept unread gives no name to wait for
    for b in found:
        first.setdefault(b.worker, b.model)
    for b in found:
        if b.model != first[b.worker]:
            log(Step.ROUTER, node, StepState.WARN,
                said(RouterSaid.FIRST_NAME_ONLY, recipe=b.recipe or "-", model=b.model,
                     first=first[b.worker]))
    return sorted(set(first.values()))


async def _ready(plan: RouterPlan, t: Transport, wanted: list[str],
                 timeout: float, key: Secret) -> RouterStatus:
    """Until it lists every wanted model, exits, or ``plan.ready_timeout`` passes."""
    deadline = time.monotonic() + plan.ready_timeout
    while True:
        status = await router_status(t, plan, timeout, key)
        if status.ready and set(wanted) <= set(status.models):
            return status
        if status.state not in ("running", "created", "restarting") or \
                time.monotonic() >= deadline:
            return status
        await asyncio.sleep(POLL_SECONDS)
