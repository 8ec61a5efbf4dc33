"""A container's ``docker inspect``, read from its node, with its secrets masked.

Secrets are masked by sparktui's one rule (``sparktui.scrub``): every value whose field
says it is a secret (an env entry ``HF_TOKEN=…``, ``--api-key X`` in the command, a URL's
password, a key named like one), whatever its length, then each such value and the
registered secrets (the Home Assistant token) in every form wherever else a string
holds them (a command line, a label, a ``sh -c`` script): what leaves here is safe to
print (``sparktui inspect``, the dashboard's ``i``).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from sparktui import untrusted_json
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.i18n import _
from sparktui.plan.runtime.docker import inspect_command
from sparktui.scrub import mask_data
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


def mask(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its secrets replaced by stars wherever they show: masked on its
    values (``sparktui.scrub.mask_data``), never on its JSON text, so a secret that is a
    JSON word (``null``, ``true``) or holds a quote cannot break it."""
    masked: dict[str, Any] = mask_data(item)
    return masked


async def inspect(transport: Transport, name: str, timeout: float) -> Described:
    """The container's ``docker inspect`` on its node; NodeError when it cannot say."""
    done = await transport.run(inspect_command(name), timeout=timeout)
    node = transport.node.name
    if not done.ok:
        raise NodeError(node, Reason.DOCKER_INSPECT_FAILED,
                        f"{name}: {visible((done.stderr or done.stdout).strip()[:300])}")
    try:
        items = untrusted_json.loads(done.stdout)
        item = items[0] if isinstance(items, list) and items else None
    except json.JSONDecodeError:
        item = None
    if not isinstance(item, dict):
        raise NodeError(node, Reason.INSPECT_NO_CONTAINER, name)
    return Described(node, name, mask(item))


NEVER = "0001-01-01T00:00:00Z"
"""docker's StartedAt of a container it never started (Go's zero time)."""


def _state(state: dict[str, Any]) -> str:
    """``running (since 2025-06-15T12:51:40Z)``; a container never started says so
    instead of its zero time (or the exit code docker gives it)."""
    status, started = str(state.get("Status") or "?"), str(state.get("StartedAt") or "")
    if status == "created" or started.startswith("0001-01-01"):
        return _("created, never started")
    return f"{status} ({started})" if started else status
