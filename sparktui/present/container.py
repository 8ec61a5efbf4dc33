"""A container's inspect in words (``sparktui inspect``, the dashboard's ``i``): the facts
first, then its labels, its environment and the whole ``docker inspect``, secrets already
masked by the engine."""

from __future__ import annotations

import json
import shlex
from typing import Any

from sparktui.engine.api import Described
from sparktui.i18n import _
from sparktui.visible import visible

MAX_LINES = 5000
"""The text view's bound: a container with a huge env is shown by its start."""

NEVER = "0001-01-01T00:00:00Z"
"""docker's StartedAt of a container it never started (Go's zero time)."""


def container_summary(described: Described) -> list[tuple[str, str]]:
    return [(_("container"), described.name), (_("node"), described.node),
            (_("image"), described.image), (_("image ID"), described.image_id),
            (_("state"), _state(described.state)),
            (_("command"), shlex.join(c for c in described.command if c))]


def container_lines(described: Described) -> list[str]:
    """One line per fact, every value made visible (no control character reaches a
    terminal), then the full ``docker inspect``."""
    rows = container_summary(described)
    width = max(len(k) for k, _v in rows)
    out = [f"{k:<{width}}  {visible(v)}" for k, v in rows]
    out += ["", _("labels")] + [f"  {visible(k)} = {visible(v)}"
                                for k, v in sorted(described.labels.items())]
    out += ["", _("env")] + [f"  {visible(e)}" for e in described.env]
    out += ["", "docker inspect"]
    out += [visible(line) for line in json.dumps(described.raw, indent=2).splitlines()]
    if len(out) > MAX_LINES:
        out = [*out[:MAX_LINES], _("… {count} more lines (sparktui inspect --json has "
                                   "them all)").format(count=len(out) - MAX_LINES)]
    return out


def container_text(described: Described) -> str:
    return "".join(line + "\n" for line in container_lines(described))


def _state(state: dict[str, Any]) -> str:
    """``running (since 2025-06-15T12:51:40Z)``; a container never started says so
    instead of its zero time (or the exit code docker gives it)."""
    status, started = str(state.get("Status") or "?"), str(state.get("StartedAt") or "")
    if status == "created" or started.startswith(NEVER[:10]):
        return _("created, never started")
    return f"{status} ({started})" if started else status
