"""A run's record: what was measured (recipe, plan, images, cluster, engine version,
tool and settings, time) next to the figures; secrets masked before anything is kept."""

from __future__ import annotations

import re
import time
from typing import Any

from sparktui.config.bench_result import FORMAT, BenchRun, LevelResult, Member, Tool
from sparktui.plan.model import LaunchPlan
from sparktui.scrub import STARS, scrub

SECRET_KEY = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|CREDENTIAL|PRIVATE", re.I)
"""Env keys whose values are kept as stars whatever they hold (an HF token in a recipe's
[env] is not a registered secret, and a result file is shared)."""


def mask_env(env: dict[str, str]) -> dict[str, str]:
    return {k: STARS if SECRET_KEY.search(k) else scrub(v) for k, v in env.items()}


def plan_members(plan: LaunchPlan | None) -> list[Member]:
    if plan is None:
        return []
    return [Member(node=n.name, role=n.role, launch=[scrub(a) for a in n.launch],
                   env=mask_env(dict(n.env))) for n in plan.nodes]


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
    return BenchRun(
        format=str(FORMAT), id=run,
        created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)),
        recipe=target.recipe, cluster=target.cluster, nodes=list(target.nodes),
        head=target.head, url=target.url, via=target.via, model=target.model, engine=target.engine,
        engine_version=target.engine_version, image=target.image,
        image_ids=dict(target.image_ids), plan=plan_members(plan),
        tool=Tool(name=tool, version=tool_version, argv=[scrub(a) for a in argv],
                  settings=settings),
        levels=levels, interrupted=interrupted)
