"""One check of ``doctor``: a node, what was checked, pass/warn/fail, the detail and a
hint; a value the front-ends show, in a light module of its own.

The detail and the hint are sentences as data (``sparktui.said``; their codes are
``doctor.DoctorSaid``) or text a node gave as it came (docker's error, nvidia-smi's
line): ``sparktui.present.doctor`` makes the words, ``as_dict`` the same JSON in every
language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparktui.said import Text, text_json

PASS, WARN, FAIL = "pass", "warn", "fail"


@dataclass(frozen=True)
class Check:
    node: str
    name: str  # the check's own name (``ssh``, ``nic enp1s0f1np1``), never translated
    status: str
    detail: Text
    hint: Text = ""

    def as_dict(self) -> dict[str, Any]:
        return {"node": self.node, "name": self.name, "status": self.status,
                "detail": text_json(self.detail), "hint": text_json(self.hint)}
