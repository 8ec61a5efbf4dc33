"""Pick the cluster a recipe runs on: exact name, unique prefix, or ``auto``."""

from __future__ import annotations

from sparktui.config.models import Cluster, Config
from sparktui.config.recipe import Recipe
from sparktui.errors import fail
from sparktui.plan.services.placement import breakdown, extra_nodes

AUTO = "auto"


def nodes_needed(recipe: Recipe, cluster: Cluster) -> int:
    """The engine's nodes (0 for a services-only recipe); pools come on top."""
    if not recipe.has_engine:
        return 0
    if recipe.required_nodes is not None:
        return recipe.required_nodes
    world = recipe.tensor_parallel_size * max(recipe.pipeline_parallel_size, 1)
    return max(1, -(-world // cluster.gpus_per_node))


def total_nodes_needed(recipe: Recipe, cluster: Cluster) -> int:
    """Engine nodes, then every service pool, then a dedicated node if one is asked for."""
    return max(1, nodes_needed(recipe, cluster) + extra_nodes(recipe))


def resolve_cluster(config: Config, recipe: Recipe, requested: str | None = None) -> Cluster:
    """Without a name: the only cluster, else ``auto``. Too few nodes is an error."""
    if not config.clusters:
        raise fail("no_clusters")
    if requested is None:
        requested = config.clusters[0].name if len(config.clusters) == 1 else AUTO
    cluster = _auto(config, recipe) if requested == AUTO else _by_name(config, requested)
    need = total_nodes_needed(recipe, cluster)
    if len(cluster.nodes) < need:
        if extra_nodes(recipe):
            raise fail("cluster_too_small_services", cluster=cluster.name,
                       have=len(cluster.nodes), need=need,
                       breakdown=breakdown(recipe, nodes_needed(recipe, cluster)))
        raise fail("cluster_too_small", cluster=cluster.name, have=len(cluster.nodes), need=need)
    return cluster


def pick_cluster(config: Config, requested: str | None) -> Cluster:
    """For commands without a recipe: the named cluster, or the only one."""
    if not config.clusters:
        raise fail("no_clusters")
    if requested is None:
        if len(config.clusters) == 1:
            return config.clusters[0]
        raise fail("cluster_required", known=[c.name for c in config.clusters])
    return _by_name(config, requested)


def _by_name(config: Config, name: str) -> Cluster:
    names = [c.name for c in config.clusters]
    if name in names:
        return config.cluster(name)
    matches = [n for n in names if n.startswith(name)]
    if len(matches) == 1:
        return config.cluster(matches[0])
    if matches:
        raise fail("cluster_ambiguous", name=name, candidates=matches)
    raise fail("cluster_unknown", name=name, known=names)


def _auto(config: Config, recipe: Recipe) -> Cluster:
    # Only a multi-node run needs the fabric settings of an [nccl] entry.
    # Pool nodes count too, but only the engine's own rendezvous needs the fabric.
    fitting = [c for c in config.clusters
               if len(c.nodes) >= total_nodes_needed(recipe, c)
               and (nodes_needed(recipe, c) <= 1 or c.name in config.nccl)]
    if not fitting:
        # The smallest requirement over all clusters is what to report.
        smallest = min(config.clusters, key=lambda c: total_nodes_needed(recipe, c))
        need = total_nodes_needed(recipe, smallest)
        if extra_nodes(recipe):
            raise fail("cluster_auto_none_services", need=need,
                       breakdown=breakdown(recipe, nodes_needed(recipe, smallest)))
        raise fail("cluster_auto_none", need=need)
    return min(fitting, key=lambda c: len(c.nodes))


def effective_pipeline_size(recipe: Recipe, cluster: Cluster, nnodes: int) -> int:
    """``pipeline_parallel_size = 0`` fills the nodes left after tensor parallelism."""
    if recipe.pipeline_parallel_size:
        return recipe.pipeline_parallel_size
    return max(1, nnodes * cluster.gpus_per_node // recipe.tensor_parallel_size)


def check_fits(recipe: Recipe, cluster: Cluster, nnodes: int, pp: int) -> None:
    world = recipe.tensor_parallel_size * pp
    if world > nnodes * cluster.gpus_per_node:
        raise fail("tp_not_divisible", world=world, nodes=nnodes, gpus=cluster.gpus_per_node)
