"""A benchmark of what serves, kept like every run (``store.save``): the dashboard's
action (its progress as steps, its end as an ``ActionResult``) and ``sparktui bench``'s
(its notes and levels to whoever hears it, the run kept and its file)."""

from __future__ import annotations

import time
from collections.abc import Callable

from sparktui.engine.bench.kept import (
    Benched,
    BenchFailed,
    BenchHeard,
    BenchProgress,
    bench_dir,
    find_tool,
)
from sparktui.engine.bench.run import run_levels, version_of
from sparktui.engine.bench.store import run_ids, save
from sparktui.engine.bench.target import BenchSaid, BenchTarget, describe, pick, starting
from sparktui.engine.cluster import ClusterEngine
from sparktui.engine.results import ActionResult, Progress, ProgressSink
from sparktui.engine.status import ClusterHealth
from sparktui.errors import SparkError
from sparktui.plan.bench.aiperf import TOOL, BenchSettings
from sparktui.plan.bench.record import build_run, run_id
from sparktui.plan.model import LaunchPlan
from sparktui.said import Text, said
from sparktui.steps import Step, StepState


async def aim(engine: ClusterEngine, health: ClusterHealth, recipe: str,
              plan: LaunchPlan | None, tool: str, via: str = "auto") -> tuple[BenchTarget, str]:
    """Where the load on ``recipe`` (serving in ``health``) goes, and the tool's version;
    ``plan`` is the one its recipe builds (None: it no longer does)."""
    target = await describe(engine, health, recipe, plan.engine if plan else None, via)
    return target, await version_of(tool)


async def keep(tool: str, settings: BenchSettings, target: BenchTarget, version: str,
               plan: LaunchPlan | None, on_level: Callable[[BenchProgress], None]) -> Benched:
    """Load on ``target``, level by level, then the run kept in the bench folder."""
    when = time.time()
    levels, interrupted, argv = await run_levels(tool, settings, target, on_level)
    directory = bench_dir()
    run = build_run(run=run_id(target.recipe, when, run_ids(directory)), when=when,
                    target=target, plan=plan, tool=TOOL, tool_version=version, argv=argv,
                    settings=settings.as_dict(), levels=levels, interrupted=interrupted)
    return Benched(run, save(directory, run))


async def bench_serving(engine: ClusterEngine, cluster: str, recipe: str | None,
                        settings: BenchSettings, tool: str, heard: BenchHeard, *,
                        via: str = "auto",
                        plan_of: Callable[[str], LaunchPlan | None] | None = None) -> Benched:
    """``sparktui bench``: ``recipe`` (None: the one recipe that serves), its plan from
    ``plan_of`` once it is known; what it says goes to ``heard``."""
    health = await engine.health(cluster)
    name = pick(health, recipe)[0]
    plan = plan_of(name) if plan_of is not None else None
    target, version = await aim(engine, health, name, plan, tool, via)
    if target.note:
        heard.note(target.note)
    heard.starting(starting(target, TOOL, version))
    return await keep(tool, settings, target, version, plan, heard.level)


async def bench_action(engine: ClusterEngine, plan: LaunchPlan, settings: BenchSettings,
                       progress: ProgressSink) -> ActionResult:
    steps: list[Progress] = []

    def say(event: Progress) -> None:
        steps.append(event)
        progress(event)

    def failed(node: str | None, detail: Text) -> ActionResult:
        say(Progress(Step.BENCH, node, StepState.FAILED, detail))
        return ActionResult(ok=False, failed_node=node, failed_step=Step.BENCH, detail=detail,
                            steps=steps)

    try:
        tool = find_tool()
        health = await engine.health(plan.cluster)
        target, version = await aim(engine, health, plan.recipe, plan, tool)
    except SparkError as exc:
        return failed(None, exc.render())
    if target.note:
        say(Progress(Step.BENCH, target.head, StepState.WARN, target.note))
    # closed (OK), so the levels' rows come below it and it stays in view
    say(Progress(Step.BENCH, target.head, StepState.OK, starting(target, TOOL, version)))
    seen: dict[int, int] = {}

    def on_level(p: BenchProgress) -> None:
        if p.state == "running" and seen.get(p.concurrency) == p.done:
            return  # the same count again: no new row
        seen[p.concurrency] = p.done
        state = {"started": StepState.STARTED, "done": StepState.OK}.get(p.state,
                                                                      StepState.WAITING)
        say(Progress(Step.BENCH, target.head, state, said(
            BenchSaid.LEVEL, level=p.level, levels=p.levels, concurrency=p.concurrency,
            done=p.done, total=p.total)))

    try:
        benched = await keep(tool, settings, target, version, plan, on_level)
    except BenchFailed as exc:
        return failed(target.head, str(exc))
    return ActionResult(ok=True, detail=str(benched.path), steps=steps)
