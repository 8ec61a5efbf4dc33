"""What a benchmark measures: the recipe serving on a cluster, read from a fresh health
check (the head's address and port as ``health`` finds them, and the cluster's router
when one runs and holds the recipe's model), the engine's version as the head reports
it, and the image ID on every node."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from sparktui import untrusted_json
from sparktui.config.base import Secret
from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.drivers import driver_for
from sparktui.engine.health import HealthSaid
from sparktui.engine.remote.http import http_get
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.router_key import RouterKeyError, kept_client_key
from sparktui.engine.status import ClusterHealth, Workload
from sparktui.errors import fail, unknown
from sparktui.i18n import N_
from sparktui.plan.image_pin import digest_of, read_repo_digests
from sparktui.plan.router import router_plan
from sparktui.said import Code, Layout, Said, Text, joined, said

VERSION_PATHS = {
    # vLLM 0.33, entrypoints/openai/api_server.py: GET /version -> {"version": VLLM_VERSION}
    "vllm": ("/version",),
    # SGLang 0.5.23, srt/entrypoints/http_server.py: GET /server_info (and its deprecated
    # alias /get_server_info) -> {**server_args, **scheduler_info, ..., "version": ...}
    "sglang": ("/server_info", "/get_server_info"),
}


class BenchSaid(Code):
    """What a benchmark says as it goes: where the load goes, and each level."""

    NOTHING = N_("nothing")
    ROUTER_PASSED = N_("the router at {address} does not hold {model} ({detail}): "
                       "benchmarking the head")
    VIA_ROUTER = N_("benchmarking {recipe} through the router at {url} with {tool} {version}")
    AT_HEAD = N_("benchmarking {recipe} at {url} with {tool} {version}")
    LEVEL = N_("level {level}/{levels}: concurrency {concurrency}, {done}/{total} requests")
    HEAD_SILENT = N_("the head of {recipe} on {node} did not answer ({error})")


@dataclass(frozen=True)
class BenchTarget:
    recipe: str
    cluster: str
    nodes: list[str]
    head: str
    host: str  # where the load goes: the head's address, or the router's
    port: int
    model: str
    engine: str
    image: str
    engine_version: str | None = None
    image_ids: dict[str, str | None] = field(default_factory=dict)
    image_digest: str | None = None
    via: str = "head"  # "head" or "router"
    note: Text | None = None  # why ``auto`` did not take the router that is configured
    api_key: Secret | None = field(default=None, repr=False, compare=False)
    """The router's client key (via the router): the load sends it, no record holds it."""

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def serving(health: ClusterHealth) -> dict[str, tuple[str, int, list[str]]]:
    """recipe -> (head node, port, models) of every head whose API answers /v1/models."""
    found: dict[str, tuple[str, int, list[str]]] = {}
    for row in health.nodes:
        for e in row.engines:
            if e.ready and e.port and e.recipe and e.recipe not in found:
                found[e.recipe] = (row.node, e.port, list(e.models))
    return found


def unanswered(health: ClusterHealth) -> list[Said]:
    """Why what serves is not known: each node or docker that did not answer (with what
    it said), each running head whose API did not answer (timed out, refused)."""
    why: list[Said] = []
    for row in health.nodes:
        if (silent := row.unanswered) is not None:
            detail = row.error if not row.reachable else row.docker_error
            why.append(joined(Layout.COLON, silent, detail) if detail else silent)
        why.extend(said(BenchSaid.HEAD_SILENT, recipe=e.recipe, node=row.node,
                        error=e.error or said(HealthSaid.PORT_TIMEOUT, port=e.port))
                   for e in row.engines if (e.error is not None or e.timed_out) and not e.ready)
    return why


def pick(health: ClusterHealth, recipe: str | None) -> tuple[str, str, int, list[str]]:
    """(recipe, head, port, models); a clear refusal when nothing (or not that) serves,
    or when several serve and none was named. When a node or a head did not answer, the
    recipe not found is "unknown" (exit 1), never "nothing serves"."""
    heads = serving(health)
    if (recipe not in heads if recipe is not None else not heads) and \
            (why := unanswered(health)):
        raise unknown("bench_unknown", cluster=health.cluster, why=why)  # a list: 400 chars
    if recipe is not None and recipe not in heads:
        raise fail("bench_not_serving", recipe=recipe, cluster=health.cluster,
                   known=sorted(heads) or [said(BenchSaid.NOTHING)])
    if recipe is None:
        if not heads:
            raise fail("bench_nothing_serving", cluster=health.cluster)
        if len(heads) > 1:
            raise fail("bench_several_serving", cluster=health.cluster, known=sorted(heads))
        recipe = next(iter(heads))
    node, port, models = heads[recipe]
    return recipe, node, port, models


def route(health: ClusterHealth, model: str, via: str) -> tuple[str, Said | None]:
    """("head" or "router", a note when ``auto`` passed over a configured router); a
    clear refusal when ``router`` is asked and the router cannot carry the load."""
    router = health.router
    holds = router is not None and router.ready and model in router.models
    if via == "head" or (via == "auto" and router is None):
        return "head", None
    if holds:
        return "router", None
    if router is None:
        raise fail("bench_no_router", cluster=health.cluster)
    why = (router.error or router.state) if not router.ready else ", ".join(router.models) or "-"
    if via == "router":
        raise fail("bench_router_lacks", cluster=health.cluster, model=model,
                   address=router.address, detail=why)
    return "head", said(BenchSaid.ROUTER_PASSED, address=router.address, model=model,
                        detail=why)


def starting(target: BenchTarget, tool: str, version: str) -> Said:
    """The line that says where the load goes, before it goes."""
    return said(BenchSaid.VIA_ROUTER if target.via == "router" else BenchSaid.AT_HEAD,
                recipe=target.recipe, url=target.url, tool=tool, version=version)


async def engine_version(transport: Transport, host: str, port: int, engine: str,
                         timeout: float) -> str | None:
    """The version the head says it runs; None when it does not say (never a guess)."""
    for path in VERSION_PATHS.get(engine, ("/version",)):
        with contextlib.suppress(OSError, TimeoutError, ConnectionError, ValueError):
            answer = await http_get(transport, host, port, path, timeout)
            if answer.status == 200:
                data = untrusted_json.loads(answer.body)
                if isinstance(data, dict) and isinstance(data.get("version"), str):
                    return data["version"][:64]
    return None


async def repo_digest(t: Transport, workload: Workload, image_id: str | None,
                      timeout: float) -> str | None:
    """The repo digest of the image the head runs (by its ID), checked like ``pin``'s
    (``plan/image_pin``); None: unknown, never pulled from a registry, or not said."""
    if not image_id:
        return None
    try:
        answer = await driver_for(workload.runtime).repo_digests(t, image_id, timeout)
        digests = read_repo_digests(answer.stdout.strip()) if answer and answer.ok else []
    except (NodeError, ValueError):
        return None
    found = digest_of(workload.node, workload.image, digests)
    return found if isinstance(found, str) else None


async def image_id(transport: Transport, workload: Workload, timeout: float) -> str | None:
    """The ID of the image the workload runs (None: its runtime runs none, or it is not
    said)."""
    with contextlib.suppress(OSError, TimeoutError, ConnectionError):
        return await driver_for(workload.runtime).workload_image(transport, workload.name,
                                                                 timeout)
    return None


async def describe(engine: ClusterEngine, health: ClusterHealth, recipe: str,
                   kind: str | None, via: str = "auto") -> BenchTarget:
    """The target of ``recipe`` (serving, as ``pick`` found it); ``kind`` is the
    recipe's engine (None: the recipe is not in the recipes folder, both are asked)."""
    name, head, port, models = pick(health, recipe)
    model = models[0] if models else ""
    way, note = route(health, model, via)
    cluster = engine.cluster(health.cluster)
    nodes = {n.name: n for n in cluster.nodes}
    host, load_port = nodes[head].ssh_ip, port
    router = router_plan(engine.config, cluster) if way == "router" else None
    key = None
    if router is not None:
        host, load_port = router.host, router.port
        try:
            key = kept_client_key(cluster)
        except RouterKeyError as exc:
            raise fail("bench_router_lacks", cluster=health.cluster, model=model,
                       address=router.address, detail=str(exc)) from None
    else:
        way = "head"  # the config was changed since the check: no router to go through
    timeout = engine.config.health_timeout_seconds
    members = [w for w in health.workloads if w.recipe == name and not w.is_service]
    head_workload = next((w for w in members if w.node == head and w.role == "head"), None)
    transport = engine.transport(nodes[head])
    version = None
    for asked in ([kind] if kind else list(VERSION_PATHS)):
        version = await engine_version(transport, nodes[head].ssh_ip, port, asked, timeout)
        if version is not None:
            kind = asked
            break
    ids = {w.node: await image_id(engine.transport(nodes[w.node]), w, timeout)
           for w in members if w.node in nodes}
    digest = (await repo_digest(transport, head_workload, ids.get(head), timeout)
              if head_workload else None)
    return BenchTarget(
        recipe=name, cluster=health.cluster, nodes=sorted({w.node for w in members}),
        head=head, host=host, port=load_port, model=model,
        engine=kind or "", image=head_workload.image if head_workload else "",
        engine_version=version, image_ids=ids, image_digest=digest, via=way, note=note,
        api_key=key)
