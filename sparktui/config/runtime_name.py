"""The runtimes' names, typed once for every layer.

A recipe's and a service's ``runtime`` field, a plan's, a discovered workload's: each is
one of these. What a runtime does is said by its own modules only: its commands in
``sparktui.plan.runtime`` (pure), their running on a node in ``sparktui.engine.drivers``.
No other code compares a runtime's name: it asks the runtime's capabilities
(``Runtime.can_enter`` and the others).
"""

from __future__ import annotations

from typing import Literal

RuntimeName = Literal["docker", "tmux"]
