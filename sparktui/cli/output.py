"""How headless commands print progress and results: plain lines, one per event."""

from __future__ import annotations

import json
import sys
from typing import Any

from sparktui.engine.api import Progress
from sparktui.i18n import N_, _
from sparktui.labels import step_label
from sparktui.scrub import mask_data, scrub

_STATE = {"ok": "ok", "failed": N_("FAILED"), "warn": N_("warn"), "started": "..", "waiting": ".."}


def state_word(state: str) -> str:
    """A progress state as the CLI prints it (``FAILED`` stands out; open states ``..``)."""
    return _(_STATE.get(state, state))


def print_progress(event: Progress) -> None:
    node = event.node or "-"
    state = state_word(event.state)
    detail = f"  {event.detail}" if event.detail else ""
    stream = sys.stderr if event.state == "failed" else sys.stdout
    print(scrub(f"{node:<12} {step_label(event.step):<13} {state:<6}{detail}"), file=stream,
          flush=True)


def print_json_line(data: dict[str, Any]) -> None:
    """One NDJSON line, every secret masked on its values."""
    print(json.dumps(mask_data(data), separators=(",", ":")), flush=True)


def yes_no(value: bool | None) -> str:
    if value is None:
        return "-"
    return _("yes") if value else _("no")


def figure(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    from sparktui.fmt import format_number, format_percent

    return format_percent(value) if percent else format_number(value)
