"""The stable JSON contract (docs/plan-format.md)."""

from __future__ import annotations

import json

from sparktui.plan.model import LaunchPlan


def render_json(plan: LaunchPlan) -> str:
    return json.dumps(plan.as_dict(), indent=2, ensure_ascii=False) + "\n"
