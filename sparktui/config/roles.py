"""The roles of an engine group's members, typed once for every layer.

A plan's nodes have one (``sparktui.plan.model``), and so has every workload a node says
it runs (its label); a light module, so the engine's values can name them without
importing the plan's models.
"""

from __future__ import annotations

from typing import Literal

Role = Literal["head", "worker"]
HEAD: Role = "head"
WORKER: Role = "worker"
ENGINE_ROLES: tuple[Role, ...] = (HEAD, WORKER)
"""A group's engine members, as opposed to its services."""
