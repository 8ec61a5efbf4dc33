"""Bytes moving onto a node during a pull, for a progress bar, NDJSON or the dashboard.

Why a value of its own beside ``Progress``: a step says what happened; a transfer says
how far it is, many times a second. The front-end derives rate and time left from
successive transfers of the same node and kind (the engine reports what it measured).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class PullKind(StrEnum):
    IMAGE = "image"
    MODEL = "model"


class Source(StrEnum):
    """Where bytes come from when not from another node (then: that node's name)."""

    REGISTRY = "registry"
    HUB = "hub"


@dataclass(frozen=True)
class Transfer:
    """``node`` has ``done`` of the ``total`` bytes it needs of ``kind``, from ``source``
    (``Source.REGISTRY``, ``Source.HUB`` or the name of the node it is copied from)."""

    kind: PullKind
    node: str
    source: str
    done: int
    total: int

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "node": self.node, "source": str(self.source),
                "done": self.done, "total": self.total}


TransferSink = Callable[[Transfer], None]


@dataclass(frozen=True)
class PullParts:
    """What a pull fetches: the image, the model, or both (image first: the model is
    downloaded by the image's own Hugging Face client)."""

    image: bool = True
    model: bool = True
