"""tmux's driver: every command through the tmux CLI on the node (``Driver`` as it is)."""

from __future__ import annotations

from sparktui.engine.drivers.base import Driver
from sparktui.engine.remote.transport import Reason
from sparktui.plan.runtime.tmux import Tmux


class TmuxDriver(Driver):
    unanswered = Reason.TMUX_UNREACHABLE

    def __init__(self) -> None:
        super().__init__(Tmux())
