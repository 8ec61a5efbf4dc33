"""Recipe services -> ``ServicePlan``s, with the exact argv of every instance.

Also returns the env the engine's nodes get: every service's
``SPARKTUI_SERVICE_<NAME>_NODES/_IPS/_NODE_COUNT`` and the addresses kinds export
(``ETCD_ENDPOINTS``, ``NATS_SERVER``, ``MOONCAKE_MASTER``...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparktui.config.models import Cluster, Config, Node
from sparktui.config.recipe import Recipe
from sparktui.config.service_checks import env_key
from sparktui.config.services import ServiceEntry
from sparktui.config.source import SourceRef
from sparktui.errors import Problem, SparkError
from sparktui.plan.runtime import runtime_for
from sparktui.plan.service_model import MetricsEndpoint, Readiness, ServiceInstance, ServicePlan
from sparktui.plan.services.implied import Wanted, wanted_services
from sparktui.plan.services.kinds.base import ServiceKind
from sparktui.plan.services.launch import service_launch
from sparktui.plan.services.placeholders import substitute, values
from sparktui.plan.services.placement import Carve, carve
from sparktui.plan.services.registry import kind_for, known_kinds


@dataclass(frozen=True)
class _Resolved:
    want: Wanted
    kind: ServiceKind
    nodes: list[Node]
    pool: str | None

    @property
    def entry(self) -> ServiceEntry:
        return self.want.entry


def plan_services(cfg: Config, cluster: Cluster, recipe: Recipe, source: SourceRef,
                  engine_count: int) -> tuple[list[ServicePlan], dict[str, str]]:
    """The recipe's services on ``cluster`` (already checked to be big enough)."""
    wanted = wanted_services(recipe)
    if not wanted:
        return [], {}
    cut = carve(cluster, recipe, engine_count)
    problems: list[Problem] = []
    resolved: list[_Resolved] = []
    for want in wanted:
        kind = kind_for(want.entry.type)
        if kind is None:
            problems.append(source.problem("service_type_unknown", want.loc("type"),
                                           type=want.entry.type, known=known_kinds()))
            continue
        problems += [source.problem(code, want.loc("options", key), **params)
                     for key, code, params in kind.option_problems(want.entry.options)]
        nodes, pool = _nodes(want, kind, cut)
        if not nodes:
            node = want.entry.placement.node or kind.placement
            problems.append(source.problem("service_no_nodes", want.loc("placement", "node"),
                                           node=node))
            continue
        resolved.append(_Resolved(want, kind, nodes, pool))
    problems += _frontend_port(recipe, resolved, source)
    if problems:
        raise SparkError(problems)
    service_env = _service_env(resolved)
    exports = {r.entry.name: r.kind.exports([n.fabric_ip for n in r.nodes], r.entry.options)
               for r in resolved}
    engine_env = dict(service_env)
    for env in exports.values():
        engine_env.update(env)
    plans = [_plan(cfg, cluster, recipe, source, r, cut, resolved, exports, service_env,
                   problems) for r in resolved]
    if problems:
        raise SparkError(problems)
    order = {"infra": 0, "before_workers": 1, "after_frontend": 2}
    plans.sort(key=lambda p: order[p.start])
    return plans, engine_env


def _nodes(want: Wanted, kind: ServiceKind, cut: Carve) -> tuple[list[Node], str | None]:
    entry = want.entry
    if entry.nodes is not None:
        return cut.pools[entry.name], entry.name
    if entry.placement.pool is not None:
        return cut.pools.get(entry.placement.pool, []), entry.placement.pool
    where = entry.placement.node or kind.placement
    chosen = {
        "head": [cut.head] if cut.head is not None else [],
        "workers": cut.engine,
        "compute": cut.compute,
        "all": cut.all,
        "dedicated": [cut.dedicated] if cut.dedicated is not None else [],
    }[where]
    return list(chosen), None


def _frontend_port(recipe: Recipe, resolved: list[_Resolved],
                   source: SourceRef) -> list[Problem]:
    for r in resolved:
        if r.kind.name == "dynamo-frontend" and recipe.has_engine:
            port = r.kind.readiness(r.entry.options).port
            if port == recipe.port:
                return [source.problem("frontend_port_clash", ("frontend", "port"), port=port)]
    return []


def _service_env(resolved: list[_Resolved]) -> dict[str, str]:
    env: dict[str, str] = {}
    for r in resolved:
        key = f"SPARKTUI_SERVICE_{env_key(r.entry.name)}"
        env[f"{key}_NODES"] = ",".join(n.name for n in r.nodes)
        env[f"{key}_IPS"] = ",".join(n.fabric_ip for n in r.nodes)
        env[f"{key}_NODE_COUNT"] = str(len(r.nodes))
    return env


def _readiness(entry: ServiceEntry, kind: ServiceKind) -> Readiness:
    default = kind.readiness(entry.options)
    spec = entry.readiness
    if spec is None:
        return default
    timeout = spec.timeout if spec.timeout is not None else default.timeout
    probe = spec.probe
    if probe is None:
        return Readiness(default.kind, default.port, default.path, default.pattern, timeout)
    if probe == "http":
        return Readiness("http", port=spec.port, path=spec.path or "/", timeout=timeout)
    if probe == "tcp":
        return Readiness("tcp", port=spec.port, timeout=timeout)
    if probe == "log":
        return Readiness("log", pattern=spec.log, timeout=timeout)
    return Readiness("none", timeout=timeout)


def _metrics(entry: ServiceEntry, kind: ServiceKind, nodes: list[Node]) -> list[MetricsEndpoint]:
    specs = entry.metrics if entry.metrics is not None else kind.metrics(entry.options)
    names = [n.name for n in nodes]
    return [MetricsEndpoint(name=spec.name or entry.name, port=spec.port, path=spec.path,
                            nodes=names[:1] if spec.nodes == "first" else names)
            for spec in specs]


def _image(recipe: Recipe, r: _Resolved) -> str:
    return r.entry.image or r.kind.image or recipe.docker_image


def _plan(cfg: Config, cluster: Cluster, recipe: Recipe, source: SourceRef, r: _Resolved,
          cut: Carve, resolved: list[_Resolved], exports: dict[str, dict[str, str]],
          service_env: dict[str, str], problems: list[Problem]) -> ServicePlan:
    entry, kind = r.entry, r.kind
    image = _image(recipe, r)
    command = entry.command if entry.command is not None else kind.default_command(entry.options)
    argv = [*command, *entry.args]
    runs_image = runtime_for(entry.runtime).runs_image
    if runs_image and not image:
        problems.append(source.problem("service_no_image", r.want.loc(), name=entry.name))
    if not runs_image and not argv:  # the host runs argv: there is no image's command
        problems.append(source.problem("service_no_command", r.want.loc(), name=entry.name))
    env: dict[str, Any] = dict(kind.environment(entry.options))
    for other in resolved:
        if other.kind.name in kind.uses:
            env.update(exports[other.entry.name])
    env.update(entry.env)
    if entry.terminal:
        env.update(service_env)
    start = entry.start or kind.start
    critical = kind.critical if entry.critical is None else entry.critical
    gpus = kind.gpus if entry.gpus is None else entry.gpus
    head = cut.head if cut.head is not None else r.nodes[0]
    readiness, metrics = _readiness(entry, kind), _metrics(entry, kind, r.nodes)
    instances = []
    for index, node in enumerate(r.nodes):
        vals = values(index=index, node=node, head=head, pool=r.nodes,
                      gpus_per_node=cluster.gpus_per_node)
        inst_env = {k: substitute(v, vals) for k, v in env.items()}
        inst_argv = [substitute(a, vals) for a in argv]
        name, launch = service_launch(
            cfg=cfg, recipe=recipe, cluster=cluster.name, node=node.name, entry=entry,
            kind=kind, index=index, start=start, critical=critical, pool=r.pool,
            readiness=readiness, metrics=metrics, image=image, gpus=gpus, env=inst_env,
            argv=inst_argv, has_command=bool(command))
        instances.append(ServiceInstance(
            service=entry.name, index=index, node=node.name, ssh_ip=node.ssh_ip,
            ssh_port=node.ssh_port, ib_ip=node.fabric_ip, local=node.local, container=name,
            env=inst_env, launch=launch, rank=node.rank))
    return ServicePlan(
        name=entry.name, type=kind.name, start=start, critical=critical,
        terminal=entry.terminal, nodes=[n.name for n in r.nodes], instances=instances,
        readiness=readiness, metrics=metrics,
        pool=r.pool, implied_by=r.want.implied_by, image=image, runtime=entry.runtime,
        owns_pool=entry.nodes is not None, placement=_placement(entry, kind))


def _placement(entry: ServiceEntry, kind: ServiceKind) -> str:
    if entry.nodes is not None or entry.placement.pool is not None:
        return "pool"
    return entry.placement.node or kind.placement
