"""Launch plans: pure functions from recipe + cluster to what serve will run.

Names load on first use (PEP 562): ``sparktui.plan.model`` (plain dataclasses) is
imported by the engine and the TUI's messages, and must not pull in ``build`` and the
pydantic models behind it before the dashboard's first frame.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "build_plan": "build",
    "HfRef": "model", "HookStep": "model", "LaunchPlan": "model", "MountPlan": "model",
    "NodePlan": "model",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sparktui.plan' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sparktui.plan.{module}"), name)
    globals()[name] = value
    return value
