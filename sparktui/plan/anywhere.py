"""A plan resolved on the nodes Slurm allocated (``[clusters.slurm] allocate = "any"``).

Such a serve submits a job for any N of the cluster's nodes; only once it runs is it
known which, and the plan (ranks, the head, the rendezvous address, the service pools)
is built again on exactly those, from the config's node table as for any cluster. The
front-ends hand the engine a ``Replan`` made here: the engine sees no config or recipe.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.models import Cluster
from sparktui.plan.build import build_plan
from sparktui.plan.model import LaunchPlan

Replan = Callable[[Sequence[str]], LaunchPlan]
"""The allocated nodes' names -> the plan on them (``SparkError`` on bad input)."""


def plan_on_nodes(config: LoadedConfig, recipe: LoadedRecipe, first: LaunchPlan,
                  nodes: Sequence[str]) -> LaunchPlan:
    """``first``'s cluster with only ``nodes`` in its table, ranked again from 0 in the
    table's order (rank 0 is the head). Its ``master_ib_ip`` is dropped: a fixed
    rendezvous address names one node, which Slurm may not have given; the head's own
    fabric address is the rendezvous, as when it is unset. The router stays ``first``'s:
    it runs beside the job, on its own node, not as a step of it."""
    wanted = set(nodes)

    def narrowed_cluster(cluster: Cluster) -> Cluster:
        held = [n for n in cluster.ranked if n.name in wanted]
        return cluster.model_copy(update={"master_ib_ip": "", "nodes": [
            n.model_copy(update={"rank": rank}) for rank, n in enumerate(held)]})

    clusters = [narrowed_cluster(c) if c.name == first.cluster else c
                for c in config.config.clusters]
    narrowed = config.config.model_copy(update={"clusters": clusters})
    plan = build_plan(LoadedConfig(narrowed, config.source), recipe, first.cluster)
    return dataclasses.replace(plan, router=first.router)


def replan_for(config: LoadedConfig, recipe: LoadedRecipe, plan: LaunchPlan) -> Replan | None:
    """The ``Replan`` a serve of ``plan`` needs, or None when its nodes are named up front
    (an SSH cluster, ``allocate = "plan"``, or a services-only recipe, whose services
    the job names by node)."""
    if plan.slurm is None or plan.slurm.allocate != "any" or not plan.nodes:
        return None
    return lambda nodes: plan_on_nodes(config, recipe, plan, nodes)
