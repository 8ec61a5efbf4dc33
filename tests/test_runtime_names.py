"""No code outside the runtimes' own modules asks which runtime it has.

What a runtime can do is asked of it (``Runtime.can_enter``, ``Workload.can_attach``,
...); only ``sparktui/plan/runtime/`` (its commands) and ``sparktui/engine/drivers/``
(their running) know a runtime by its name. This reads every module's syntax tree for a
runtime compared with a string, and for the runtimes' names typed anywhere but
``sparktui/config/runtime_name.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from plan_support import REPO

from sparktui.config.runtime_name import RuntimeName

PACKAGE = REPO / "sparktui"
OWNERS = (PACKAGE / "plan" / "runtime", PACKAGE / "engine" / "drivers")
NAMES = set(get_args(RuntimeName))


def _is_runtime(node: ast.expr) -> bool:
    """``x.runtime`` or a variable named ``runtime``."""
    return (isinstance(node, ast.Attribute) and node.attr == "runtime") or \
        (isinstance(node, ast.Name) and node.id == "runtime")


def _is_text(node: ast.expr) -> bool:
    """A string literal, or a tuple, list or set of them (``in ("docker", ...)``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_text(e) for e in node.elts)
    return False


def name_comparisons(source: str) -> list[int]:
    """The lines where a runtime is compared with a string (``==``, ``!=``, ``in``,
    ``match``/``case``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(_is_runtime, sides)) and any(map(_is_text, sides)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Match) and _is_runtime(node.subject) and any(
                isinstance(case.pattern, ast.MatchValue) and _is_text(case.pattern.value)
                for case in node.cases):
            lines.append(node.lineno)
    return sorted(lines)


def literal_names(source: str) -> list[int]:
    """The lines where ``Literal[...]`` lists the runtimes' names."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "Literal":
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if {v.value for v in values if isinstance(v, ast.Constant)} & NAMES:
                lines.append(node.lineno)
    return lines


def _sources() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not any(p.is_relative_to(owner) for owner in OWNERS)]


def test_no_module_outside_the_runtimes_compares_a_runtimes_name() -> None:
    found = [f"{path.relative_to(REPO)}:{line}" for path in _sources()
             for line in name_comparisons(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_runtimes_names_are_typed_once() -> None:
    found = [str(path.relative_to(REPO)) for path in _sources()
             for _line in literal_names(path.read_text(encoding="utf-8"))]
    assert found == ["sparktui/config/runtime_name.py"]


def test_the_scan_sees_each_way_of_asking_the_name() -> None:
    asked = '''
if w.runtime == "tmux": pass
if "docker" != plan.runtime: pass
if s.target.runtime in ("docker", "tmux"): pass
if runtime == "docker": pass
match head.runtime:
    case "tmux": pass
'''
    assert name_comparisons(asked) == [2, 3, 4, 5, 6]
    fine = '''
if w.can_attach: pass
if w.runtime == other.runtime: pass
runtime = "docker"
RUNTIMES[w.runtime]
'''
    assert name_comparisons(fine) == []
    assert literal_names('R = Literal["docker", "tmux"]\nK = Literal["a"]\n') == [1]
