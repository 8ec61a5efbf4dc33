"""A run's record: what was measured (recipe, plan, images, cluster, engine version,
tool and settings, time) next to the figures; secrets masked before anything is kept
(a result file is shared: ``bench --compare a.json b.json``)."""

from __future__ import annotations

import time
from typing import Any

from sparktui.config.bench_result import FORMAT, BenchRun, LevelResult, Member, Tool
from sparktui.plan.model import LaunchPlan
from sparktui.scrub import mask_data


def plan_members(plan: LaunchPlan | None) -> list[Member]:
    """The plan's nodes as they are kept: masked with the whole run by ``build_run``."""
    if plan is None:
        return []
    return [Member(node=n.name, role=n.role, launch=list(n.launch), env=dict(n.env))
            for n in plan.nodes]


def run_id(recipe: str, when: float, taken: set[str]) -> str:
    """``20261201-203159-glm``: sortable by time, unique in the folder."""
    base = time.strftime("%Y%m%d-%H%M%S", time.gmtime(when)) + "-" + recipe
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def build_run(*, run: str, when: float, target: Any, plan: LaunchPlan | None,
              tool: str, tool_version: str, argv: list[str], settings: dict[str, Any],
              levels: list[LevelResult], interrupted: bool) -> BenchRun:
    """``target`` is the engine's BenchTarget (duck-typed: plan cannot import engine)."""
    whole = BenchRun(
        format=FORMAT, id=run,
        created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)),
        recipe=target.recipe, cluster=target.cluster, nodes=list(target.nodes),
        head=target.head, url=target.url, via=target.via, model=target.model, engine=target.engine,
        engine_version=target.engine_version, image=target.image,
        image_ids=dict(target.image_ids), image_digest=target.image_digest,
        plan=plan_members(plan),
        tool=Tool(name=tool, version=tool_version, argv=list(argv), settings=settings),
        levels=levels, interrupted=interrupted)
    return masked(whole)


def masked(run: BenchRun) -> BenchRun:
    """``run`` with no secret in any field: sparktui's one rule (``sparktui.scrub``) on its
    values (env entries named like secrets, ``-e HF_TOKEN=…`` and ``--api-key X`` in the
    launch argv, URL passwords, keys named like secrets), then each value so found and
    every registered secret wherever else a string holds it, in every form."""
    return BenchRun.model_validate(mask_data(run.model_dump()))
