"""Two runs side by side: what differs in what was measured (plan, images, engine,
settings) and what it did to the figures."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from sparktui.config.bench_result import BenchRun, LevelResult


@dataclass(frozen=True)
class Change:
    what: str  # "image_ids.node1", "plan.node1.launch", "plan.node1.env.KEY", ...
    before: str
    after: str

    def as_dict(self) -> dict[str, str]:
        return {"what": self.what, "before": self.before, "after": self.after}


def _words_diff(a: list[str], b: list[str]) -> tuple[str, str]:
    """The words of two argvs that differ, each side with its neighbours dropped."""
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return " ".join(removed) or "-", " ".join(added) or "-"


def _show(value: Any) -> str:
    return "-" if value is None or value == "" else str(value)


def changes(a: BenchRun, b: BenchRun) -> list[Change]:
    out: list[Change] = []

    def same(what: str, x: Any, y: Any) -> None:
        if x != y:
            out.append(Change(what, _show(x), _show(y)))

    for key in ("recipe", "cluster", "model", "engine", "engine_version", "image", "via", "url"):
        same(key, getattr(a, key), getattr(b, key))
    same("nodes", ", ".join(a.nodes), ", ".join(b.nodes))
    for node in sorted(set(a.image_ids) | set(b.image_ids)):
        same(f"image_ids.{node}", a.image_ids.get(node), b.image_ids.get(node))
    same("image_digest", a.image_digest, b.image_digest)
    plan_a, plan_b = {m.node: m for m in a.plan}, {m.node: m for m in b.plan}
    for node in sorted(set(plan_a) | set(plan_b)):
        ma, mb = plan_a.get(node), plan_b.get(node)
        if ma is None or mb is None:
            same(f"plan.{node}", ma and ma.role, mb and mb.role)
            continue
        if ma.launch != mb.launch:
            removed, added = _words_diff(ma.launch, mb.launch)
            out.append(Change(f"plan.{node}.launch", removed, added))
        for key in sorted(set(ma.env) | set(mb.env)):
            same(f"plan.{node}.env.{key}", ma.env.get(key), mb.env.get(key))
    same("tool", f"{a.tool.name} {a.tool.version}", f"{b.tool.name} {b.tool.version}")
    for key in sorted(set(a.tool.settings) | set(b.tool.settings)):
        same(f"settings.{key}", a.tool.settings.get(key), b.tool.settings.get(key))
    return out


FIGURES = ("output_tokens_per_second", "request_throughput", "ttft_p50", "ttft_p99",
           "itl_p50", "e2e_p50", "errors")


def figure(level: LevelResult, name: str) -> float | None:
    if name in ("output_tokens_per_second", "request_throughput"):
        return getattr(level, name)
    if name == "errors":
        return float(level.errors)
    stat, _, quantile = name.partition("_")
    return getattr(getattr(level, stat), quantile)


def level_pairs(a: BenchRun, b: BenchRun
                ) -> list[tuple[int, LevelResult | None, LevelResult | None]]:
    by_a = {lv.concurrency: lv for lv in a.levels}
    by_b = {lv.concurrency: lv for lv in b.levels}
    return [(c, by_a.get(c), by_b.get(c)) for c in sorted(set(by_a) | set(by_b))]


def ratio(before: float | None, after: float | None) -> float | None:
    """after / before - 1 (0.12: 12% more); None when either is unknown or before is 0."""
    if before is None or after is None or before == 0:
        return None
    return after / before - 1.0


def comparison(a: BenchRun, b: BenchRun) -> dict[str, Any]:
    """The comparison as data (``--compare --json``)."""
    levels = []
    for c, la, lb in level_pairs(a, b):
        row: dict[str, Any] = {"concurrency": c}
        for name in FIGURES:
            x = figure(la, name) if la else None
            y = figure(lb, name) if lb else None
            row[name] = {"a": x, "b": y, "change": ratio(x, y)}
        levels.append(row)
    return {"a": a.id, "b": b.id, "changes": [c.as_dict() for c in changes(a, b)],
            "levels": levels}
