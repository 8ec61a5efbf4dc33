"""recipe + cluster -> LaunchPlan. Pure: no network, no subprocess, no clock."""

from __future__ import annotations

from sparktui.config.loader import LoadedConfig, LoadedRecipe
from sparktui.config.models import Cluster, Config, Node
from sparktui.config.recipe import Recipe
from sparktui.config.roles import HEAD, WORKER
from sparktui.config.source import SourceRef
from sparktui.errors import Problem, SparkError
from sparktui.plan.after_stop import LABEL as AFTER_STOP_LABEL
from sparktui.plan.after_stop import to_label as after_stop_label
from sparktui.plan.cluster import (
    check_fits,
    effective_pipeline_size,
    nodes_needed,
    resolve_cluster,
)
from sparktui.plan.container import (
    COMPILE_CACHES,
    HF_CACHE_CONTAINER,
    container_name,
    engine_command,
)
from sparktui.plan.engines import Engine, EngineContext, engine_for
from sparktui.plan.env import container_env
from sparktui.plan.fit.settings import launch_share
from sparktui.plan.model import (
    MEM_SHARE_LABEL,
    HfRef,
    HookStep,
    LaunchPlan,
    MountPlan,
    NodePlan,
    SlurmPlan,
)
from sparktui.plan.router import router_plan
from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import EngineLaunch
from sparktui.plan.service_model import ServicePlan


def build_plan(config: LoadedConfig, recipe: LoadedRecipe,
               cluster: str | None = None) -> LaunchPlan:
    """The whole launch, node by node; raises SparkError with file:line on bad input.

    HF references stay ``{{placeholder}}``: serve resolves them per node
    (``sparktui.plan.hf.substitute``). A services-only recipe (no ``engine``) gives a
    plan with no engine nodes: ``engine`` "none", ``port`` 0, only ``services``.
    """
    cfg, rec = config.config, recipe.recipe
    if rec.engine is not None:
        _check_args(engine_for(rec.engine), rec, recipe.source)
    chosen = resolve_cluster(cfg, rec, cluster)
    nnodes = nodes_needed(rec, chosen)
    services, service_env = _services(cfg, chosen, rec, recipe.source, nnodes)
    if rec.engine is None:
        return LaunchPlan(recipe=rec.name, cluster=chosen.name, engine="none",
                          runtime=rec.runtime, port=0, model="", image=rec.docker_image,
                          ssh_user=cfg.ssh_user, nodes=[], start_order=[],
                          services=services, frontend=rec.frontend_type)
    engine = engine_for(rec.engine)
    pp = effective_pipeline_size(rec, chosen, nnodes)
    check_fits(rec, chosen, nnodes, pp)
    mounts, injected = _mounts(cfg, rec, recipe.source)
    injected = {**service_env, **injected}
    cluster_hooks = [_step(h, "cluster") for h in _cluster_hooks(cfg, chosen.name)]
    port = api_port(rec, services)
    nodes = []
    for node in chosen.ranked[:nnodes]:
        ctx = EngineContext(recipe=rec,
                            nnodes=nnodes, rank=node.rank, master_ip=chosen.master_ip,
                            node_ip=node.fabric_ip, pipeline_parallel_size=pp)
        nodes.append(_node_plan(cfg, chosen, node, engine, ctx, mounts, injected,
                                cluster_hooks, port))
    workers = [n.name for n in nodes if not n.is_head]
    head = [n.name for n in nodes if n.is_head]
    # mp: workers wait for the head's rendezvous, so they start first; Ray: head first.
    start_order = head + workers if rec.distributed_backend == "ray" else workers + head
    hf_refs = [HfRef(m.container, m.repo or "", m.subfolder) for m in rec.extra_mounts
               if m.is_hf_ref]
    return LaunchPlan(recipe=rec.name, cluster=chosen.name, engine=rec.engine,
                      runtime=rec.runtime, port=port, model=rec.model,
                      image=rec.docker_image, ssh_user=cfg.ssh_user, nodes=nodes,
                      start_order=start_order, hf_refs=hf_refs, services=services,
                      frontend=rec.frontend_type, router=router_plan(cfg, chosen),
                      slurm=slurm_plan(chosen, cfg.stop_grace_seconds))


def slurm_plan(cluster: Cluster, stop_grace: float = 30.0) -> SlurmPlan | None:
    s = cluster.slurm
    return None if s is None else SlurmPlan(s.partition, s.submit_host, s.account, s.qos,
                                            s.reservation, s.time_limit, stop_grace,
                                            s.allocate)


def api_port(rec: Recipe, services: list[ServicePlan]) -> int:
    """Where the API answers: the engine's port, or the Dynamo frontend's (its workers
    listen on none, and publish none: the frontend serves on the host's network)."""
    if rec.frontend_type == "dynamo":
        for service in services:
            if service.type == "dynamo-frontend" and service.readiness.port:
                return service.readiness.port
    return rec.port


def declared_api_port(rec: Recipe) -> int:
    """:func:`api_port` without a cluster (the recipes list): the Dynamo frontend's
    ``[frontend] port`` or its default, else the engine's port."""
    if rec.frontend_type == "dynamo":
        from sparktui.plan.services.kinds.dynamo import DEFAULT_PORT  # kinds load on use

        return rec.frontend.port or DEFAULT_PORT
    return rec.port


def _services(cfg: Config, cluster: Cluster, rec: Recipe, source: SourceRef,
              nnodes: int) -> tuple[list[ServicePlan], dict[str, str]]:
    """Loads the kinds only for a recipe that has or implies services."""
    if not (rec.services or rec.telemetry or rec.mooncake_kv_store
            or rec.frontend_type == "dynamo"):
        return [], {}
    from sparktui.plan.services.assemble import plan_services

    return plan_services(cfg, cluster, rec, source, nnodes)


def _node_plan(cfg: Config, cluster: Cluster, node: Node, engine: Engine, ctx: EngineContext,
               mounts: list[MountPlan], injected: dict[str, str],
               cluster_hooks: list[HookStep], port: int) -> NodePlan:
    rec = ctx.recipe
    role = HEAD if ctx.is_head else WORKER
    nccl = cfg.nccl.get(cluster.name)
    env = container_env(ctx, engine.ip_env, nccl, injected)
    runtime = runtime_for(rec.runtime)
    entrypoint = list(rec.entrypoint)
    if not entrypoint and (not runtime.runs_image or ctx.uses_ray):
        # No image entrypoint runs here: a host runtime (tmux) has no image, and a Ray
        # start replaces the image's entrypoint with `sh -c` (mods require an entrypoint
        # of their own).
        entrypoint = list(engine.default_entrypoint)
    command = engine_command(engine, ctx, entrypoint)
    name = container_name(rec.name)
    after_stop = [_step(h) for h in rec.after_stop]
    labels = {"recipe": rec.name, "cluster": cluster.name, "node": node.name,
              "rank": str(node.rank), "role": role, "port": str(port),
              AFTER_STOP_LABEL: after_stop_label(after_stop)}
    share = launch_share(rec.engine or "", list(rec.args), rec.tensor_parallel_size)
    if share is not None:  # read back by discovery: what a recipe holds comes from the node
        labels[MEM_SHARE_LABEL] = f"{share:g}"
    launch = runtime.launch(EngineLaunch(
        name=name, labels=labels, env=env, command=command, image=rec.docker_image,
        mounts=mounts, multi_node=ctx.nnodes > 1,
        fabric_ib=nccl is not None and not nccl.ib_disable, shm_size=rec.shm_size,
        publish=port if ctx.is_head and rec.frontend_type != "dynamo" else None))
    return NodePlan(
        name=node.name, ssh_ip=node.ssh_ip, ssh_port=node.ssh_port, ib_ip=node.fabric_ip,
        rank=node.rank, role=role, local=node.local, container=name, env=env,
        mounts=mounts if runtime.runs_image else [],
        before_serve=[*cluster_hooks, *(_step(h) for h in rec.before_serve)],
        launch=launch, after_stop=after_stop)


def _cluster_hooks(cfg: Config, cluster: str) -> list:
    block = cfg.before_serve.get(cluster)
    return list(block.commands) if block else []


def _step(entry, origin: str = "recipe") -> HookStep:
    return HookStep(entry.kind, entry.run, entry.on_failure, origin)


def _check_args(engine: Engine, rec: Recipe, source: SourceRef) -> None:
    problems = [source.problem("launcher_flag", ("args", i), flag=flag)
                for i, arg in enumerate(rec.args)
                if (flag := engine.owned_flag_in(arg)) is not None]
    if problems:
        raise SparkError(problems)


def _mounts(cfg: Config, rec: Recipe, source: SourceRef) -> tuple[list[MountPlan],
                                                                 dict[str, str]]:
    """HF cache first, then each compile cache the recipe does not mount itself, then extra
    mounts: alias (site-wide) wins over the recipe's host."""
    mounts = [MountPlan(cfg.hf_cache_host, HF_CACHE_CONTAINER)]
    own = {mount.container for mount in rec.extra_mounts if not mount.is_hf_ref}
    mounts += [MountPlan(cfg.expand_home(host), container)
               for host, container in COMPILE_CACHES if container not in own]
    injected: dict[str, str] = {}
    problems: list[Problem] = []
    for i, mount in enumerate(rec.extra_mounts):
        if mount.is_hf_ref:
            continue
        host = cfg.mount_aliases.get(mount.alias) if mount.alias else None
        host = host or mount.host
        if host is None:
            problems.append(source.problem("mount_unknown_alias", ("extra_mounts", i, "alias"),
                                           alias=mount.alias))
            continue
        host = cfg.expand_home(host)
        if not host.startswith("/"):
            # docker would take a relative path for a named volume and fail at start.
            problems.append(source.problem("mount_host_relative",
                                           ("extra_mounts", i, "host"), host=host))
            continue
        mounts.append(MountPlan(host, mount.container, bool(mount.read_only)))
        if mount.env:
            injected[mount.env] = mount.container
    if problems:
        raise SparkError(problems)
    return mounts, injected
