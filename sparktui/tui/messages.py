"""Small messages: workers post them with what the engine said; widgets post them with
what the operator chose. Handlers on the dashboard screen and the app own the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

RawLine = tuple[str, str, bool]
"""``(node, text, gap)``, as ``LogLine`` holds them: a ``LogLine`` is one, but under a flood
the worker sends exact tuples, which CPython's cyclic collector stops tracking (it keeps
every NamedTuple tracked, and ~50,000 a second of those made full collections long)."""

if TYPE_CHECKING:  # field types only: the app imports this before its first frame
    from sparktui.engine.api import (
        ActionResult,
        ClusterHealth,
        Progress,
        TelemetryFrame,
        Transfer,
    )

# -- from workers (engine results) ------------------------------------------------------


@dataclass
class HealthUpdated(Message):
    """A fresh health check of one cluster."""

    health: ClusterHealth


@dataclass
class TelemetryUpdated(Message):
    """A telemetry sample of one cluster (figures, history, alerts)."""

    frame: TelemetryFrame


@dataclass
class HealthFailed(Message):
    """The health check itself failed (timeout, engine error); the last health stays."""

    cluster: str
    error: str


@dataclass
class LogsArrived(Message):
    """Lines collected from the log stream since the last batch."""

    cluster: str
    lines: Sequence[RawLine]


@dataclass
class ActionProgress(Message):
    """One step of the running serve or stop, as the engine's progress sink reported it."""

    run_id: int
    progress: Progress


@dataclass
class ActionTransfer(Message):
    """A pull's bytes on one node, as the engine measured them."""

    run_id: int
    transfer: Transfer


@dataclass
class PullOffered(Message):
    """The operator took the pull a refused serve offered (``P`` on its progress view)."""

    run_id: int


@dataclass
class ActionFinished(Message):
    """The serve or stop worker returned (``result.ok`` or where it failed)."""

    run_id: int
    result: ActionResult


# -- from widgets (the operator's choices) -----------------------------------------------


@dataclass
class ClusterFocused(Message):
    """The operator picked a cluster: the dashboard shows it, workers follow it."""

    cluster: str


@dataclass
class NodeChosen(Message):
    """Enter (or click) on a node: show its details."""

    cluster: str
    node: str


@dataclass
class RecipeHighlighted(Message):
    """The cursor moved to a recipe: preview its plan."""

    name: str


@dataclass
class RecipeChosen(Message):
    """Enter (or click) on a recipe: open its plan."""

    name: str
