"""One driver per runtime: each runs its runtime's commands (``sparktui.plan.runtime``)
on a node, chosen by the runtime's name through ``DRIVERS`` (``base.py`` says what a
driver does).

Adding a runtime is its ``Runtime`` (``sparktui.plan.runtime``) and its driver here, on
``RUNTIMES``' order; no code elsewhere asks which runtime it has.
"""

from __future__ import annotations

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers.base import Driver
from sparktui.engine.drivers.docker import DOCKER
from sparktui.engine.drivers.tmux import TmuxDriver

DRIVERS: dict[RuntimeName, Driver] = {d.name: d for d in (DOCKER, TmuxDriver())}
"""Keyed and ordered as ``sparktui.plan.runtime.RUNTIMES`` (a test holds them equal)."""


def driver_for(name: RuntimeName) -> Driver:
    return DRIVERS[name]
