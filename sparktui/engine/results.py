"""What an action of the engine hands back: its steps as they happen (``Progress``, to a
``ProgressSink``) and its end (``ActionResult``); ``exec``'s answer per node.

Plain values, defined below the engine's faces (``sparktui.engine.api``) so that every
engine module can make them without importing the API the front-ends hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sparktui.said import Text, text_json
from sparktui.steps import Outcome, Step, StepState

if TYPE_CHECKING:
    from sparktui.plan.model import LaunchPlan


@dataclass(frozen=True)
class Progress:
    """One step of a long action, for a progress display (CLI line or TUI row)."""

    step: Step
    node: str | None
    state: StepState
    detail: Text = ""  # a value (an image ID, a container) or a sentence as data
    entity: str | None = None  # power steps: the Home Assistant entity switched

    def as_json(self) -> dict[str, Any]:
        """The same in every language: codes, values, and a sentence as its code."""
        return {"step": self.step.value, "node": self.node, "state": self.state.value,
                "detail": text_json(self.detail) if self.detail else None,
                **({"entity": self.entity} if self.entity else {})}


ProgressSink = Callable[[Progress], None]


@dataclass(frozen=True)
class ActionResult:
    ok: bool
    failed_node: str | None = None
    failed_step: str | None = None
    detail: Text = ""
    steps: list[Progress] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    exit_code: int | None = None  # serve of terminal services: their worst exit code
    served: LaunchPlan | None = None
    """A serve's plan as it ran: on a Slurm cluster's any N nodes, resolved on the job's."""

    @property
    def warnings(self) -> list[Progress]:
        """Steps that failed without failing the action (a hook with ``on_failure = "warn"``):
        the end of the action says them, they never pass as done."""
        return [e for e in self.steps if e.state == StepState.WARN]

    @property
    def done(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.done]

    @property
    def not_done(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.done]


@dataclass(frozen=True)
class ExecResult:
    node: str
    exit_code: int | None  # None: the node could not run it (unreachable, timeout)
    stdout: str
    stderr: str
    error: str | None = None
