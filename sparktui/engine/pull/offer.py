"""Whether a refused serve is one ``sparktui pull`` would fix: its preflight found the
image, or the model, missing on a node. Both front-ends offer the pull from this one rule
(the CLI's hint line, the dashboard's ``P`` on the failed serve)."""

from __future__ import annotations

from collections.abc import Iterator

from sparktui.engine.results import ActionResult
from sparktui.engine.workloads.preflight import PreflightSaid
from sparktui.engine.workloads.serve import ServeSaid
from sparktui.said import Code, Items, Param, Said

PULL_FIXES: frozenset[Code] = frozenset(
    {PreflightSaid.NOT_PRESENT, ServeSaid.NOT_IN_CACHE, ServeSaid.PATH_MISSING})


def pull_would_fix(result: ActionResult) -> bool:
    return not result.ok and any(code in PULL_FIXES for code in _codes(result.detail))


def _codes(value: Param) -> Iterator[Code]:
    if isinstance(value, Said):
        yield value.code
        for param in value.params.values():
            yield from _codes(param)
    elif isinstance(value, Items):
        for item in value.items:
            yield from _codes(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _codes(item)
