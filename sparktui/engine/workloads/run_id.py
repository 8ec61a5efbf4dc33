"""The run id: a value fresh for each workload sparktui starts (``RUN_LABEL``).

The plan is pure and leaves it out; each launch gets its own when the engine runs it
(``Driver.stamp``). A container made from an image that bakes ``sparktui.*`` labels, or
by hand, has no such value, or the image's: discovery makes it foreign
(``discover.foreign_reason``, ``discover.disown_image_runs``).
"""

from __future__ import annotations

import secrets

from sparktui.plan.runtime.base import RUN_ID_LENGTH


def new_run_id() -> str:
    return secrets.token_hex(RUN_ID_LENGTH // 2)
