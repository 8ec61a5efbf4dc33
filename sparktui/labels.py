"""Words for the codes the engine reports (steps, states): the code stays English for JSON
and tests, people read ``step_label(code)`` in their language."""

from __future__ import annotations

from sparktui.i18n import N_, _

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
