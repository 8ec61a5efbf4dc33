"""One check of ``doctor``: a node, what was checked, pass/warn/fail, the detail and a
hint; a value the front-ends show, in a light module of its own."""

from __future__ import annotations

from dataclasses import dataclass

PASS, WARN, FAIL = "pass", "warn", "fail"


@dataclass(frozen=True)
class Check:
    node: str
    name: str
    status: str
    detail: str
    hint: str = ""

    def as_dict(self) -> dict[str, str]:
        return dict(self.__dict__)
