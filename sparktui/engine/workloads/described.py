"""What ``inspect`` reads of a container: its ``docker inspect``, secrets already masked
(``sparktui.engine.workloads.inspect``), a value the front-ends show.

Its own light module: the dashboard and the CLI take it from ``sparktui.engine.api``
without importing the transport that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Described:
    node: str
    name: str
    raw: dict[str, Any]
    """``docker inspect``'s object, masked."""

    @property
    def state(self) -> dict[str, Any]:
        """docker's ``State`` of it."""
        return self.raw.get("State") or {}

    @property
    def image(self) -> str:
        """The image it was made from, by name."""
        return str(self._config().get("Image") or "")

    @property
    def image_id(self) -> str:
        return str(self.raw.get("Image") or "")

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
