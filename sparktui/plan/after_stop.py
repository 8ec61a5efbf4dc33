"""The after_stop hooks of a run: they travel with it, as a label on each node.

A stop must always be able to run them (a ``restore_dgx_services`` that never runs
leaves the node crippled), wherever it is started and whether or not the recipe is
still in the recipes folder. So the plan puts each node's steps in the label
``sparktui.after_stop`` (JSON) of its container or tmux session; stop reads them back.
The recipe lookup by name (``after_stop_loader``) remains for runs started before the
label existed; when neither is there, stop says what was not restored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from sparktui import untrusted_json
from sparktui.config.discovery import find_recipe
from sparktui.errors import SparkError
from sparktui.plan.model import HookStep

LABEL = "after_stop"
HooksFor = Callable[[str], list[HookStep] | None]
"""recipe name -> its after_stop steps; None when the recipe cannot be loaded."""


def to_label(steps: list[HookStep]) -> str:
    return json.dumps([[s.kind, s.run, s.on_failure] for s in steps], separators=(",", ":"))


def from_label(text: str) -> list[HookStep] | None:
    """The steps of a label; None when it is not one we wrote (unreadable: unknown)."""
    try:
        items = untrusted_json.loads(text)
    except ValueError:
        return None
    steps = []
    for item in items if isinstance(items, list) else [None]:
        if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, str)
                                                                  for x in item)):
            return None
        kind, run, on_failure = item
        if kind not in ("command", "script") or on_failure not in ("abort", "warn"):
            return None
        steps.append(HookStep(kind, run, on_failure))
    return steps


def after_stop_loader(directory: Path,
                      on_error: Callable[[str, SparkError], None] | None = None) -> HooksFor:
    """A ``hooks_for`` for ``ClusterEngine.stop`` (runs from before the label): a recipe
    that does not load (deleted, broken) gives None, and ``on_error(recipe, error)``."""

    def hooks(name: str) -> list[HookStep] | None:
        from sparktui.config.loader import load_recipe  # the models: not at the dashboard's start

        try:
            recipe = load_recipe(find_recipe(directory, name)).recipe
        except SparkError as exc:
            if on_error is not None:
                on_error(name, exc)
            return None
        return [HookStep(h.kind, h.run, h.on_failure) for h in recipe.after_stop]

    return hooks
