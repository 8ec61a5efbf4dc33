"""Runtimes by name: one module per runtime (docker containers, tmux sessions).

Adding one is its name in ``sparktui.config.runtime_name.RuntimeName``, a module with a
``Runtime`` subclass (``base.py`` says what it must do and can do) and its line in
``RUNTIMES``, and its driver in ``sparktui.engine.drivers`` (which runs its commands); the
recipe's and the service's ``runtime`` field names it.
"""

from __future__ import annotations

from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.runtime.base import Runtime
from sparktui.plan.runtime.docker import Docker
from sparktui.plan.runtime.tmux import Tmux

RUNTIMES: dict[RuntimeName, type[Runtime]] = {Docker.name: Docker, Tmux.name: Tmux}
"""In discovery order: the first lists unmarked, the others after their marker."""


def runtime_for(name: RuntimeName) -> Runtime:
    return RUNTIMES[name]()
