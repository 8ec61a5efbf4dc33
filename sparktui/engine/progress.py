"""The one way an action reports its steps: each event kept for its result and passed on."""

from __future__ import annotations

from collections.abc import Callable

from sparktui.engine.results import Progress, ProgressSink
from sparktui.said import Said, Text
from sparktui.steps import Step, StepState


class ProgressLog:
    """Call it with a step and a state; ``events`` is what an ``ActionResult`` carries.

    ``redact`` cleans every detail before anyone sees it (power scrubs secrets).
    """

    def __init__(self, sink: ProgressSink, redact: Callable[[str], str] | None = None):
        self.sink = sink
        self.redact = redact
        self.events: list[Progress] = []

    def __call__(self, step: Step, node: str | None, state: StepState, detail: Text = "",
                 entity: str | None = None) -> None:
        if self.redact is not None:
            detail = (detail.redacted(self.redact) if isinstance(detail, Said)
                      else self.redact(detail))
        event = Progress(step, node, state, detail, entity)
        self.events.append(event)
        self.sink(event)
