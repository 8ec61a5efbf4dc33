"""Launch plans: pure functions from recipe + cluster to what serve will run.

Names load on first use (PEP 562): ``sparktui.plan.model`` (plain dataclasses) is
imported by the engine and the TUI's messages, and must not pull in ``build`` and the
validated models behind it before the dashboard's first frame.
"""

from __future__ import annotations

from sparktui.lazy import lazy_exports

_EXPORTS = {
    "build_plan": "build",
    "HfRef": "model", "HookStep": "model", "LaunchPlan": "model", "MountPlan": "model",
    "NodePlan": "model",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
