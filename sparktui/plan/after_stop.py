"""The after_stop hooks of a recipe, looked up by name when stop finds its workloads.

Stop learns which recipes ran from the nodes' labels, so the hooks are loaded only
then, from the recipes folder. The CLI and the dashboard share this one lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sparktui.config.discovery import find_recipe
from sparktui.errors import SparkError
from sparktui.plan.model import HookStep

HooksFor = Callable[[str], list[HookStep]]
"""recipe name -> its after_stop steps."""


def after_stop_loader(directory: Path,
                      on_error: Callable[[str, SparkError], None] | None = None) -> HooksFor:
    """A ``hooks_for`` for ``ClusterEngine.stop``: a recipe that does not load (deleted,
    broken) has no hooks, and ``on_error(recipe, error)`` says so."""

    def hooks(name: str) -> list[HookStep]:
        from sparktui.config.loader import load_recipe  # the models: not at the dashboard's start

        try:
            recipe = load_recipe(find_recipe(directory, name)).recipe
        except SparkError as exc:
            if on_error is not None:
                on_error(name, exc)
            return []
        return [HookStep(h.kind, h.run, h.on_failure) for h in recipe.after_stop]

    return hooks
