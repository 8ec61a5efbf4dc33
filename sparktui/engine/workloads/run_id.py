"""The run id: a value fresh for each workload sparktui starts (``RUN_LABEL``).

The plan is pure and leaves it out; each launch gets its own here, when the engine runs
it. A container made from an image that bakes ``sparktui.*`` labels, or by hand, has no
such value, or the image's: discovery makes it foreign (``discover.foreign_reason``,
``discover.disown_image_runs``).
"""

from __future__ import annotations

import secrets

from sparktui.plan.runtime import runtime_for
from sparktui.plan.runtime.base import RUN_ID_LENGTH


def new_run_id() -> str:
    return secrets.token_hex(RUN_ID_LENGTH // 2)


def stamped(runtime: str, argv: list[str]) -> list[str]:
    """``argv`` (a plan's launch of ``runtime``) with a fresh run id."""
    return runtime_for(runtime).stamp(argv, new_run_id())
