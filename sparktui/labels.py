"""Words for the codes the engine reports (steps, states): the code stays English for JSON
and tests, people read ``step_label(code)`` in their language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparktui.i18n import N_, _

if TYPE_CHECKING:
    from sparktui.engine.api import Outcome

STEPS = {
    "preflight": N_("preflight"), "hooks": N_("hooks"), "hf": N_("HF refs"),
    "launch": N_("launch"), "ready": N_("ready"), "rollback": N_("rollback"),
    "stop": N_("stop"), "after_stop": N_("after_stop"), "shutdown": N_("shutdown"),
    "halt": N_("halt"), "delay": N_("delay"), "power_off": N_("power off"),
    "power_on": N_("power on"), "boot": N_("boot"), "services": N_("services"),
}
STATES = {"ok": "ok", "failed": N_("failed"), "warn": N_("warn"), "started": N_("started"),
          "waiting": N_("waiting")}


def step_label(step: str) -> str:
    return _(STEPS[step]) if step in STEPS else step


def state_label(state: str) -> str:
    return _(STATES[state]) if state in STATES else state


def outcome_line(outcome: Outcome) -> str:
    """``power_off  switch.node2 (node2)  kept on: node2 did not go down``."""
    target = (f"{outcome.target} ({outcome.node})" if outcome.node
              and outcome.node != outcome.target else outcome.target)
    return f"{outcome.action:<10} {target:<28} {outcome.detail}"
