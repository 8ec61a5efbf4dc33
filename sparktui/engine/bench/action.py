"""A benchmark as one action of the dashboard (its progress as steps, its end as an
``ActionResult``), kept like the CLI's (``store.save``)."""

from __future__ import annotations

import time

from sparktui.engine.api import ActionResult, Progress, ProgressSink, Step, StepState
from sparktui.engine.bench.run import BenchFailed, BenchProgress, find_tool, run_levels, version_of
from sparktui.engine.bench.store import bench_dir, run_ids, save
from sparktui.engine.bench.target import describe, starting
from sparktui.engine.cluster import ClusterEngine
from sparktui.errors import SparkError
from sparktui.i18n import _
from sparktui.plan.bench.aiperf import TOOL, BenchSettings
from sparktui.plan.bench.record import build_run, run_id
from sparktui.plan.model import LaunchPlan


async def bench_action(engine: ClusterEngine, plan: LaunchPlan, settings: BenchSettings,
                       progress: ProgressSink) -> ActionResult:
    steps: list[Progress] = []

    def say(event: Progress) -> None:
        steps.append(event)
        progress(event)

    def failed(node: str | None, detail: str) -> ActionResult:
        say(Progress(Step.BENCH, node, StepState.FAILED, detail))
        return ActionResult(ok=False, failed_node=node, failed_step=Step.BENCH, detail=detail,
                            steps=steps)

    try:
        tool = find_tool()
        health = await engine.health(plan.cluster)
        target = await describe(engine, health, plan.recipe, plan.engine)
    except SparkError as exc:
        return failed(None, exc.render())
    version = await version_of(tool)
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
        say(Progress(Step.BENCH, target.head, state, _(
            "level {level}/{levels}: concurrency {concurrency}, {done}/{total} "
            "requests").format(level=p.level, levels=p.levels, concurrency=p.concurrency,
                               done=p.done, total=p.total)))

    when = time.time()
    try:
        levels, interrupted, argv = await run_levels(tool, settings, target, on_level)
    except BenchFailed as exc:
        return failed(target.head, str(exc))
    directory = bench_dir()
    run = build_run(run=run_id(target.recipe, when, run_ids(directory)), when=when,
                    target=target, plan=plan, tool=TOOL, tool_version=version, argv=argv,
                    settings=settings.as_dict(), levels=levels, interrupted=interrupted)
    path = save(directory, run)
    return ActionResult(ok=True, detail=str(path), steps=steps)
