"""Runtimes by name: one module per runtime (docker containers, tmux sessions).

Adding one is a module with a ``Runtime`` subclass (``base.py`` says what it must do) and
its line in ``RUNTIMES``; the recipe's and the service's ``runtime`` field names it.
"""

from __future__ import annotations

from sparktui.plan.runtime.base import Runtime
from sparktui.plan.runtime.docker import Docker
from sparktui.plan.runtime.tmux import Tmux

RUNTIMES: dict[str, type[Runtime]] = {"docker": Docker, "tmux": Tmux}
"""In discovery order: the first lists unmarked, the others after their marker."""


def runtime_for(name: str) -> Runtime:
    return RUNTIMES[name]()
