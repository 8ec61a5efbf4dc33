"""What ``inspect`` reads of a container: its ``docker inspect``, secrets already masked
(``sparktui.engine.workloads.inspect``), a value the front-ends show.

Its own light module: the dashboard and the CLI take it from ``sparktui.engine.api``
without importing the transport that reads it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from sparktui.i18n import _
from sparktui.visible import visible

MAX_LINES = 5000
"""The text view's bound: a container with a huge env is shown by its start."""


@dataclass(frozen=True)
class Described:
    node: str
    name: str
    raw: dict[str, Any]
    """``docker inspect``'s object, masked."""

    def _config(self) -> dict[str, Any]:
        return self.raw.get("Config") or {}

    @property
    def labels(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in (self._config().get("Labels") or {}).items()}

    @property
    def env(self) -> list[str]:
        return [str(e) for e in self._config().get("Env") or []]

    @property
    def command(self) -> list[str]:
        return [str(self.raw.get("Path") or ""), *map(str, self.raw.get("Args") or [])]

    def summary(self) -> list[tuple[str, str]]:
        state = self.raw.get("State") or {}
        return [(_("container"), self.name), (_("node"), self.node),
                (_("image"), str(self._config().get("Image") or "")),
                (_("image ID"), str(self.raw.get("Image") or "")),
                (_("state"), _state(state)),
                (_("command"), shlex.join(c for c in self.command if c))]

    def lines(self) -> list[str]:
        """One line per fact, every value made visible (no control character reaches a
        terminal), then the full ``docker inspect``."""
        rows = self.summary()
        width = max(len(k) for k, _v in rows)
        out = [f"{k:<{width}}  {visible(v)}" for k, v in rows]
        out += ["", _("labels")] + [f"  {visible(k)} = {visible(v)}"
                                    for k, v in sorted(self.labels.items())]
        out += ["", _("env")] + [f"  {visible(e)}" for e in self.env]
        out += ["", "docker inspect"]
        out += [visible(line) for line in json.dumps(self.raw, indent=2).splitlines()]
        if len(out) > MAX_LINES:
            out = [*out[:MAX_LINES], _("… {count} more lines (sparktui inspect --json has "
                                       "them all)").format(count=len(out) - MAX_LINES)]
        return out

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines())



NEVER = "0001-01-01T00:00:00Z"
"""docker's StartedAt of a container it never started (Go's zero time)."""


def _state(state: dict[str, Any]) -> str:
    """``running (since 2025-06-15T12:51:40Z)``; a container never started says so
    instead of its zero time (or the exit code docker gives it)."""
    status, started = str(state.get("Status") or "?"), str(state.get("StartedAt") or "")
    if status == "created" or started.startswith("0001-01-01"):
        return _("created, never started")
    return f"{status} ({started})" if started else status
