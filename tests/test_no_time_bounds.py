"""No test asserts that something took less than a time: a benchmark (benchmarks/)
measures time, a test asserts behaviour. Six pytest workers on two cores make any pass
slower, so a bound on an elapsed time fails a correct program; what such a bound meant
to show is asserted instead (which deadline ended a wait, the order of events, a count).
A deadline that only bounds a failure is fine: tests/polling.py's, a hang guard.

Read from the sources (ast). A duration is a clock reading (``time.monotonic()``,
``perf_counter``, ``time.time``, ``process_time``, a loop's ``time()``) minus something,
a name given one, or a name or attribute called so (``elapsed``, ``took``,
``duration``: they come back from helpers where the subtraction is out of sight). An
upper bound is ``duration < x`` (or ``<=``, or ``x > duration``) in an ``assert``, or
``duration > x`` in an ``if`` that raises or fails the test, where ``x`` is not a
duration too (two durations compared are a relation, which a load does not change). A
deadline is a clock reading compared with a point in time, never a duration:
``time.monotonic() < deadline`` passes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent

CLOCKS = frozenset({"monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time",
                    "time_ns", "process_time", "process_time_ns"})
# Not ``ttft`` or ``latency``: most are figures a look-alike was told to report, which no
# load changes. A latency a tool measured on the wall clock (``sparktui bench``'s) is out
# of this scan's sight: tests/engine/bench/test_bench.py says how it is asserted.
DURATION_NAME = re.compile(r"^(elapsed|took|duration|durations|wall)$"
                           r"|_(elapsed|took|duration|durations)$|^(elapsed|took|duration)_")
WRAPPERS = frozenset({"abs", "round", "float", "int", "max", "min", "sum", "median", "mean"})


def _is_clock(node: ast.AST) -> bool:
    """A clock read: ``time.monotonic()``, ``loop.time()``, ``perf_counter()``, ..."""
    if not (isinstance(node, ast.Call) and not node.args and not node.keywords):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in CLOCKS


class _Module:
    """The names of one module bound to a clock reading or to a duration."""

    def __init__(self, tree: ast.Module) -> None:
        self.clock: set[str] = set()
        self.durations: set[str] = set()
        pairs = list(self._bindings(tree))
        changed = True
        while changed:  # a duration may be made from a name bound further down
            changed = False
            for name, value in pairs:
                if name not in self.clock and (_is_clock(value) or self._is_reading(value)):
                    self.clock.add(name)
                    changed = True
                if name not in self.durations and self.is_duration(value):
                    self.durations.add(name)
                    changed = True

    @staticmethod
    def _bindings(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
        """(name, value) of every assignment, pairwise through tuples; a container a clock
        reading is stored in (``times[k] = monotonic()``, ``.append``, ``.setdefault``)."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        for one, value in zip(target.elts, node.value.elts, strict=False):
                            if isinstance(one, ast.Name):
                                yield one.id, value
                    elif isinstance(target, ast.Name):
                        yield target.id, node.value
                    elif isinstance(target, ast.Subscript) and isinstance(target.value,
                                                                          ast.Name):
                        yield target.value.id, node.value
            elif isinstance(node, ast.NamedExpr):
                yield node.target.id, node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.attr in ("append", "setdefault", "add")):
                for arg in node.args:
                    yield node.func.value.id, arg

    def _is_reading(self, node: ast.AST) -> bool:
        if _is_clock(node):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.clock
        if isinstance(node, ast.Subscript):
            return self._is_reading(node.value)
        return False

    def is_duration(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.durations or bool(DURATION_NAME.search(node.id))
        if isinstance(node, ast.Attribute):
            return bool(DURATION_NAME.search(node.attr))
        if isinstance(node, ast.Subscript):
            key = node.slice
            named = isinstance(key, ast.Constant) and isinstance(key.value, str) \
                and bool(DURATION_NAME.search(key.value))  # lv["ttft"], run["duration_s"]
            return named or self.is_duration(node.value)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Sub) and (self._is_reading(node.left)
                                                 or self._is_reading(node.right)):
                return True  # a reading minus a reading, or minus a point in time
            if isinstance(node.op, ast.Div):
                return self.is_duration(node.left)  # a duration per run, not a rate
            return self.is_duration(node.left) or self.is_duration(node.right)
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            return name in WRAPPERS and any(self.is_duration(a) for a in node.args)
        return False


def _raises(body: list[ast.stmt]) -> bool:
    """Whether a branch fails the test: ``raise``, ``pytest.fail``."""
    for node in body:
        if isinstance(node, ast.Raise):
            return True
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "fail"):
            return True
    return False


def _bounds(module: _Module, test: ast.AST, failing_when_true: bool) -> Iterator[ast.Compare]:
    """The comparisons in ``test`` that cap a duration: in an ``assert`` (what must
    hold), or in an ``if`` whose branch fails the test (``failing_when_true``)."""
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for left, op, right in zip(sides, node.ops, sides[1:], strict=False):
            below = isinstance(op, ast.Lt | ast.LtE)
            above = isinstance(op, ast.Gt | ast.GtE)
            if failing_when_true:
                below, above = above, below
            small, bound = (left, right) if below else (right, left)
            if (below or above) and module.is_duration(small) \
                    and not module.is_duration(bound):  # two durations: a relation
                yield node
                break


def upper_bounds(source: str) -> list[int]:
    """The lines of ``source`` where a duration is held under a bound."""
    tree = ast.parse(source)
    module = _Module(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            lines += [c.lineno for c in _bounds(module, node.test, failing_when_true=False)]
        elif isinstance(node, ast.If) and _raises(node.body):
            lines += [c.lineno for c in _bounds(module, node.test, failing_when_true=True)]
    return sorted(set(lines))


def test_no_test_asserts_a_duration_under_a_bound() -> None:
    found = [f"{path.relative_to(TESTS)}:{line}"
             for path in sorted(TESTS.rglob("*.py")) if "testimage" not in path.parts
             for line in upper_bounds(path.read_text(encoding="utf-8"))]
    assert found == [], "a duration held under a bound (a benchmark measures time): " \
        + ", ".join(found)


CAPPED = [
    "started = time.monotonic()\nrun()\nassert time.monotonic() - started < 5\n",
    "t0 = time.perf_counter()\nrun()\nelapsed = time.perf_counter() - t0\nassert elapsed < 5\n",
    "health, elapsed = asyncio.run(go())\nassert elapsed < timeout / 2\n",
    "assert 15 > run.took\n",
    "loop = asyncio.get_running_loop()\nt = loop.time()\nawait x\nassert loop.time() - t <= 1\n",
    "times = []\ntimes.append(time.monotonic())\nassert times[1] - times[0] < 2\n",
    "t0 = time.monotonic()\nrun()\nif time.monotonic() - t0 > 5:\n    raise AssertionError\n",
    "d = time.time() - start\nassert abs(d - 1.0) < 0.2\n",
    "assert lv['duration_seconds'] < 5\n",
]
FINE = [
    "deadline = time.monotonic() + 30\nwhile x():\n    assert time.monotonic() < deadline\n",
    "started = time.monotonic()\nrun()\nassert time.monotonic() - started >= 0.3\n",
    "if time.monotonic() > deadline:\n    raise AssertionError('still false')\n",
    "assert rate(a, b) / (t1 - t0) > 0\n",
    "assert seconds < 10\n",  # a setting, not a measurement
    "assert times['off'] - times['halt'] >= 1.0\n",
    "seconds = lv['duration_seconds']\nassert lv['e2e_p50'] <= lv['elapsed'] <= seconds\n",
    "assert 0.04 < e.ttft_p50 <= 0.06\n",  # what a look-alike was told to report
]


def test_the_scan_finds_each_shape_of_a_bound_and_passes_deadlines() -> None:
    assert [source for source in CAPPED if not upper_bounds(source)] == []
    assert [source for source in FINE if upper_bounds(source)] == []
