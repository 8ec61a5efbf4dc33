"""The stable JSON contract (docs/plan-format.md)."""

from __future__ import annotations

import json

from sparktui.plan.model import LaunchPlan
from sparktui.scrub import mask_data


def render_json(plan: LaunchPlan) -> str:
    """Secrets masked on the plan's values (``sparktui.scrub.mask_data``), then dumped."""
    return json.dumps(mask_data(plan.as_dict()), indent=2, ensure_ascii=False) + "\n"
