"""Every test module that runs a look-alike engine says why (issue #34).

The real vLLM serves under the tests that need it (tests/real_vllm_support.py); a module
that still runs the test image's look-alike vLLM or SGLang, the tmux tests' host engine,
the hostile server or a liar's engine carries ``LOOKALIKE = Why.X`` (or a tuple of them),
the reasons of tests/lookalike.py. Found by reading the sources (ast), not by importing
them: a module uses a look-alike when it names one of the look-alike helpers, writes a
look-alike knob or recipe, or imports from another test module a name that does
(followed across modules until nothing changes). A module that says why but uses none
fails too: a stale reason is a false one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from lookalike import Why

TESTS = Path(__file__).resolve().parent
# tests/hosts is the look-alike itself (and its real engine), not a test of sparktui.
SKIP = (TESTS / "hosts", Path(__file__).resolve())

# Names whose use runs a look-alike: the toy recipe (vllm:test, ``vllm serve``), the
# hostile server's recipe, the figures the look-alike reports, the tmux tests' host
# engine, the liar's engine port, the Hub's stand-in.
NAMES = frozenset({"toy_recipe", "hostile_recipe", "set_engine", "FAKE_ENGINE",
                   "lying_http", "HttpLie", "hub_standin", "HubStandin"})
# Text that runs one: a look-alike knob (``STANDIN_READY_AFTER`` ...), a recipe on the
# look-alike image, the look-alike engine program.
TEXTS = ("STANDIN_", 'docker_image = "vllm:test"', "http_engine.py")


def _direct(node: ast.AST) -> bool:
    """Whether ``node``'s subtree names a look-alike itself."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in NAMES:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in NAMES:
            return True
        if isinstance(sub, ast.alias) and (sub.asname or sub.name) in NAMES:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) \
                and any(text in sub.value for text in TEXTS):
            return True
    return False


def _names_in(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def _imports(tree: ast.Module) -> Iterable[tuple[str, str, str]]:
    """(module's last part, imported name, local name) of each ``from X import n``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield node.module.rsplit(".", 1)[-1], alias.name, alias.asname or alias.name


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    """A module's top-level definitions by name (functions, classes, assignments)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def lookalike_users(sources: Mapping[str, str]) -> set[str]:
    """The modules (by stem, e.g. ``test_serve``) among ``sources`` (stem -> text) that
    use a look-alike, directly or through a name imported from another of them."""
    users: set[str] = set()
    imports: dict[str, list[tuple[str, str, str]]] = {}
    defs: dict[str, list[tuple[str, bool, set[str]]]] = {}  # name, direct, names used
    used: dict[str, set[str]] = {}
    for stem, text in sources.items():
        tree = ast.parse(text)
        if _direct(tree):
            users.add(stem)
        imports[stem] = list(_imports(tree))
        defs[stem] = [(name, _direct(node), _names_in(node))
                      for name, node in _top_level(tree).items()]
        used[stem] = _names_in(tree) | {as_name for _, _, as_name in imports[stem]}
    tainted: dict[str, set[str]] = {stem: set() for stem in sources}  # look-alike names
    changed = True
    while changed:  # until no name and no module is added
        changed = False
        for stem in sources:
            local = set(tainted[stem])
            local |= {as_name for module, name, as_name in imports[stem]
                      if name in tainted.get(module, ())}
            local |= {name for name, direct, names in defs[stem] if direct or names & local}
            if local != tainted[stem]:
                tainted[stem] = local
                changed = True
            if stem not in users and local & used[stem]:
                users.add(stem)
                changed = True
    return users


def stated_reasons(text: str) -> tuple[Why, ...] | None:
    """The reasons of a module-level ``LOOKALIKE = Why.X`` or ``(Why.X, Why.Y)``; None if
    the module has no such assignment or names something that is not a reason."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] \
                == ["LOOKALIKE"]:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            reasons: list[Why] = []
            for value in values:
                if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                        and value.value.id == "Why" and value.attr in Why.__members__):
                    return None
                reasons.append(Why[value.attr])
            return tuple(reasons) or None
    return None


def problems(sources: Mapping[str, str]) -> list[str]:
    """One line per test module that uses a look-alike without saying why, or says why
    and uses none."""
    users = lookalike_users(sources)
    out = []
    for stem, text in sorted(sources.items()):
        if not stem.startswith("test_"):
            continue
        said = stated_reasons(text)
        if stem in users and said is None:
            out.append(f"{stem}: runs a look-alike engine and does not say why "
                       "(LOOKALIKE = Why.X, tests/lookalike.py)")
        elif stem not in users and "LOOKALIKE" in text and said is not None:
            out.append(f"{stem}: says LOOKALIKE but runs no look-alike engine")
    return out


@cache
def _sources() -> dict[str, str]:
    """The test tree's modules by stem, but the test bed and this module (whose examples
    hold the markers); files of one stem (the conftests) are read as one module."""
    out: dict[str, str] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if not any(path.is_relative_to(skip) for skip in SKIP):
            out[path.stem] = out.get(path.stem, "") + path.read_text() + "\n"
    return out


def test_every_module_that_runs_a_lookalike_says_why() -> None:
    found = problems(_sources())
    assert found == [], "\n".join(found)


def test_the_scan_finds_the_known_lookalike_modules() -> None:
    """The markers still find what they were made for: a module serving the toy recipe,
    one setting figures, one importing a look-alike recipe from another test module, and
    not the real engine's tests."""
    users = lookalike_users(_sources())
    assert {"test_serve", "test_observe", "test_dashboard_fit", "test_tmux_failures",
            "test_lying_node_cli"} <= users
    assert not {"test_real_vllm", "test_real_vllm_logs", "test_lookalikes_say_why"} & users


SUPPORT = '''
def toy_recipe(port):
    return f"engine = 'vllm'\\nport = {port}\\n"
'''
THROUGH = '''
from site_support import toy_recipe
RECIPE = toy_recipe(30011)
'''


def test_the_check_fails_a_module_that_does_not_say_why() -> None:
    user = "from other import RECIPE\n\ndef test_x(site):\n    site(1).recipe('t', RECIPE)\n"
    sources = {"site_support": SUPPORT, "other": THROUGH, "test_x": user}
    assert problems(sources) == ["test_x: runs a look-alike engine and does not say why "
                                 "(LOOKALIKE = Why.X, tests/lookalike.py)"]
    knob = {"test_y": "def test_y():\n    env = {'STANDIN_HANG_AFTER': '1'}\n"}
    assert [line.split(":")[0] for line in problems(knob)] == ["test_y"]
    said = "from lookalike import Why\nLOOKALIKE = (Why.FAULT, Why.SPEED)\n" + user
    assert problems({**sources, "test_x": said}) == []
    wrong = "from lookalike import Why\nLOOKALIKE = Why.BECAUSE\n" + user
    assert problems({**sources, "test_x": wrong})[0].startswith("test_x: runs a look-alike")


def test_the_check_fails_a_stale_reason() -> None:
    stale = "from lookalike import Why\nLOOKALIKE = Why.SPEED\n\ndef test_z():\n    pass\n"
    assert problems({"test_z": stale}) == ["test_z: says LOOKALIKE but runs no look-alike engine"]
