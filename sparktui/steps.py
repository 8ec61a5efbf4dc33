"""The codes an action reports: its steps, their states, and what it set out to do.

Plain values below every layer: the engine reports them (``sparktui.engine.api`` passes
them on with its results), ``sparktui.labels`` gives them words, and both front-ends and
JSON read the codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparktui.said import Text


class Step(StrEnum):
    """The steps of serve, stop and power; their words: ``sparktui.labels.STEPS``.

    A ``StrEnum``: each is its code, so JSON, CLI lines and comparisons see the string."""

    PREFLIGHT = "preflight"
    FIT = "fit"  # memory fit of the model on each node (sparktui.plan.fit)
    SHARES = "shares"  # the node's memory shared with the recipes already running there
    HF = "hf"
    BEFORE_SERVE = "before_serve"
    SERVICE = "service"
    LAUNCH = "launch"
    READY = "ready"
    ROLLBACK = "rollback"
    LEFT = "left"  # a workload a failed or interrupted serve (or stop) leaves (named)
    STOP = "stop"
    AFTER_STOP = "after_stop"
    SHUTDOWN = "shutdown"
    HALT = "halt"
    DELAY = "delay"
    POWER_OFF = "power_off"
    POWER_ON = "power_on"
    BOOT = "boot"
    SUPERVISE = "supervise"  # the on-node supervisor: installed, removed
    ROUTER = "router"  # the cluster's router made again from what serves (engine/router.py)
    BENCH = "bench"  # a benchmark level: requests done (sparktui.engine.bench)
    PULL_IMAGE = "pull_image"  # sparktui pull: the recipe's image onto the nodes lacking it
    PULL_MODEL = "pull_model"  # sparktui pull: the model's snapshot into each node's HF cache
    SLURM = "slurm"  # a Slurm cluster's job: submitted, pending (why), running, cancelled


class StepState(StrEnum):
    """Where a step is; its words: ``sparktui.labels.STATES``."""

    STARTED = "started"
    WAITING = "waiting"
    OK = "ok"
    WARN = "warn"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    """One thing an action set out to do, and whether it was done (power lists them)."""

    action: str  # shutdown, power_off, power_on, boot
    target: str  # a node name, or an entity id for power_off/power_on
    done: bool
    detail: Text = ""  # a sentence as data (sparktui.said), or a value
    node: str | None = None  # for an entity: the node it powers (None: an extra entity)
