"""``generic``: any command in any image; everything comes from the recipe entry."""

from __future__ import annotations

from sparktui.plan.services.kinds.base import ServiceKind
from sparktui.plan.services.registry import register


@register
class Generic(ServiceKind):
    name = "generic"
