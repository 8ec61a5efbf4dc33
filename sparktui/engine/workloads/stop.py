"""stop: remove a cluster's workloads, found on the nodes by their labels, then restore
the nodes with the runs' after_stop hooks.

Heads go first so serving stops before its workers go, then the services (critical ones
last), then after_stop runs once everything on a node is gone. An unreachable node is
reported and the reachable ones are still stopped.

Only sparktui's own workloads are acted on (``Workload.ours``): a foreign one (labelled
for another node, without a run id of sparktui's, its labels unreadable) is named and
left alone. Every step runs on the node that listed the workload, and an after_stop
read back from a label runs only when each of its steps parses.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping

from sparktui.config.scripts import BUILTIN_SCRIPTS
from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.results import ActionResult, ProgressSink
from sparktui.engine.services.labels import teardown_groups
from sparktui.engine.status import Workload
from sparktui.engine.workloads.discover import discover
from sparktui.engine.workloads.hooks import ScriptText, StepFailed, run_hook
from sparktui.i18n import N_
from sparktui.plan.after_stop import LABEL as AFTER_STOP_LABEL
from sparktui.plan.after_stop import HooksFor, from_label
from sparktui.plan.model import HookStep
from sparktui.said import Code, Said, Text, said
from sparktui.steps import Step, StepState


class StopSaid(Code):
    LEFT_ALONE = N_("{name} left alone, not sparktui's: {why}")
    NOT_EVERY_NODE = N_("not every node could be stopped: {nodes}")
    LABEL_UNPARSED = N_("the after_stop label of {recipe} on {node} does not parse ({why}): "
                        "not restored, restore {node} by hand")
    HOOKS_UNKNOWN = N_("the after_stop hooks of {recipe} are unknown (the run carries no "
                       "label and the recipe is not found): restore {node} by hand")
    NOT_STEPS = N_("not a list of steps")
    UNKNOWN_SCRIPT = N_("unknown built-in script {name}")


class Stop:
    def __init__(self, cluster: str, transports: Mapping[str, Transport],
                 progress: ProgressSink, scripts: ScriptText, *, recipe: str | None = None,
                 hooks_for: HooksFor | None = None, stop_grace: float = 30.0):
        self.cluster = cluster
        self.t = transports  # every node of the cluster, by name
        self.scripts = scripts
        self.recipe = recipe
        self.hooks_for = hooks_for
        self.stop_grace = stop_grace
        self._say = ProgressLog(progress)
        self.failed: list[str] = []  # nodes where something may still run
        self.unrestored: list[tuple[str, Text]] = []  # (node, why) after_stop did not finish
        self._found: list[Workload] = []  # sparktui's workloads the listing found
        self._gone: set[tuple[str, str]] = set()  # (node, name) seen removed

    async def run(self) -> ActionResult:
        """The stop; cancelled (Ctrl+C), it names each workload it found and did not
        see removed (``left`` rows) before the cancellation goes on."""
        try:
            return await self._stop()
        except asyncio.CancelledError:
            for w in self._found:
                if (w.node, w.name) not in self._gone:
                    self._say(Step.LEFT, w.node, StepState.WARN, w.name)
            raise

    async def _stop(self) -> ActionResult:
        listed = [w for ws in await asyncio.gather(*map(self._found_on, self.t)) for w in ws]
        for workload in listed:
            if not workload.ours:
                self._say(Step.STOP, workload.node, StepState.WARN, said(
                    StopSaid.LEFT_ALONE, name=workload.name, why=workload.foreign))
        found = self._found = [w for w in listed if w.ours]
        engine = [w for w in found if not w.is_service]
        # Heads get SIGTERM first, so serving stops before the workers go; then every
        # member gets its grace period at the same time (a stop costs one grace, not two).
        await asyncio.gather(*(self._term(w) for w in engine if w.role == "head"))
        await asyncio.gather(*(self._remove(w) for w in engine))
        for group in teardown_groups([w for w in found if w.is_service]):
            await asyncio.gather(*(self._remove(w) for w in group))
        # Every node whose workloads are gone is restored, whatever happened elsewhere.
        for workload in engine:
            if workload.node not in self.failed:  # else it may still run: not restored
                await self._restore(workload)
        return self._result(bool(found))

    def _result(self, found: bool) -> ActionResult:
        log = self._say.events
        if self.failed:
            return ActionResult(False, self.failed[0], Step.STOP,
                                said(StopSaid.NOT_EVERY_NODE, nodes=list(self.failed)), log)
        if self.unrestored:
            node, why = self.unrestored[0]
            return ActionResult(False, node, Step.AFTER_STOP, why, log)
        if not found:
            self._say(Step.STOP, None, StepState.OK, "nothing was running")
        return ActionResult(True, steps=log)

    async def _found_on(self, node: str) -> list[Workload]:
        try:
            workloads = await discover(self.t[node])
        except NodeError as exc:  # SSH or docker: what runs there is unknown
            self._say(Step.STOP, node, StepState.FAILED, exc.text)
            self.failed.append(node)
            return []
        return [w for w in workloads if w.cluster == self.cluster
                and (self.recipe is None or w.recipe == self.recipe)]

    async def _term(self, head: Workload) -> None:
        with contextlib.suppress(NodeError):  # the stop below reports what went wrong
            await driver_for(head.runtime).signal_stop(self.t[head.node], head.name)

    async def _remove(self, workload: Workload) -> None:
        self._say(Step.STOP, workload.node, StepState.STARTED, workload.name)
        try:
            result = await driver_for(workload.runtime).remove(
                self.t[workload.node], workload.name, self.stop_grace,
                waiting=lambda why: self._say(Step.STOP, workload.node, StepState.WAITING, why))
            ok, detail = result.ok, result.stderr.strip()[:200]
        except NodeError as exc:
            ok, detail = False, exc.text
        self._say(Step.STOP, workload.node, StepState.OK if ok else StepState.FAILED,
                  detail or workload.name)
        if ok:
            self._gone.add((workload.node, workload.name))
        else:
            self.failed.append(workload.node)

    async def _restore(self, workload: Workload) -> None:
        """The run's after_stop hooks on its node; the first that aborts ends them."""
        steps = after_stop_steps(workload, self.hooks_for)
        if isinstance(steps, Said):
            why = said(StopSaid.LABEL_UNPARSED, recipe=workload.recipe, node=workload.node,
                       why=steps)
            self._say(Step.AFTER_STOP, workload.node, StepState.FAILED, why)
            self.unrestored.append((workload.node, why))
            return
        if steps is None:
            why = said(StopSaid.HOOKS_UNKNOWN, recipe=workload.recipe, node=workload.node)
            self._say(Step.AFTER_STOP, workload.node, StepState.FAILED, why)
            self.unrestored.append((workload.node, why))
            return
        for step in steps:
            try:
                await run_hook(self.t[workload.node], workload.node, step, Step.AFTER_STOP,
                               self.scripts, self._say)
            except StepFailed as exc:
                self._say(exc.step, exc.node, StepState.FAILED, exc.detail)
                self.unrestored.append((workload.node, exc.detail))
                return


def after_stop_steps(workload: Workload, hooks_for: HooksFor | None
                     ) -> list[HookStep] | Said | None:
    """What to run once ``workload`` is gone: its label (the plan put it there), else its
    recipe's (a run from before the label); None when neither can be known; why not, when
    the label is there and does not parse (a step of an unknown kind, a built-in script
    that does not exist): then no step of it runs."""
    label = workload.labels.get(AFTER_STOP_LABEL) or None  # "": a container's blank
    if label is None:
        return hooks_for(workload.recipe) if hooks_for is not None else None
    steps = from_label(label)
    if steps is None:
        return said(StopSaid.NOT_STEPS)
    unknown = [s.run for s in steps if s.kind == "script" and s.run not in BUILTIN_SCRIPTS]
    if unknown:
        return said(StopSaid.UNKNOWN_SCRIPT, name=repr(unknown[0][:60]))
    return steps
