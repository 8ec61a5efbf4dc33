"""The headless path stays headless, and every layer imports only the layers above it.

Like Harlequin's ``hsql`` test: run ``plan`` in a fresh interpreter and look at
``sys.modules``. Then read every source file's imports (lazy ones inside functions
included) and check the direction of the flow: config -> plan -> engine -> present ->
tui/cli, and that the front-ends and the words they show (``present``) reach the engine
through its API (``sparktui.engine.api``) only.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, RECIPES, REPO, subprocess_env

PACKAGE = REPO / "sparktui"


def modules_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it leaves its result in ``result``."""
    wrapper = code + "\nimport json, sys\nprint(json.dumps({'result': result, " \
                     "'modules': sorted(sys.modules)}))\n"
    proc = subprocess.run([sys.executable, "-c", wrapper], cwd=REPO, env=subprocess_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _loaded(modules: list[str], name: str) -> list[str]:
    return [m for m in modules if m == name or m.startswith(name + ".")]


def test_plan_command_never_imports_textual() -> None:
    data = modules_after(f"""
import io, contextlib
import sparktui.cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = sparktui.cli.main(["--config", {str(EXAMPLE_CONFIG)!r}, "--recipes",
                              {str(RECIPES)!r}, "plan", "glm-4.5-air-mtp", "-f", "json"])
result = [code, json.loads(out.getvalue())["recipe"]] if code == 0 else [code, None]
""".replace("json.loads", "__import__('json').loads"))
    assert data["result"] == [0, "glm-4.5-air-mtp"]
    modules = data["modules"]
    assert "sparktui.plan" in modules  # the plan really was built
    assert _loaded(modules, "textual") == []
    assert _loaded(modules, "sparktui.tui") == []
    # the models are pydantic's; those plan does not validate are not even imported
    assert "sparktui.config.models" in modules and "pydantic.main" in modules
    for unused in ("sparktui.config.bench_result", "sparktui.config.json_schema"):
        assert unused not in modules, unused


def test_importing_the_models_builds_none_of_them() -> None:
    """``defer_build``: a model's validator is built when it first validates, so a
    command pays only for the models it reads."""
    data = modules_after("""
from sparktui.config.base import Strict
import sparktui.config.models, sparktui.config.recipe, sparktui.config.bench_result

def models(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from models(sub)

every = sorted({m.__name__ for m in models(Strict)})
built = sorted(m.__name__ for m in models(Strict) if m.__pydantic_complete__)
from sparktui.config.models import Node
Node(name="n", ssh_ip="h", rank=0)
result = [every, built, sorted(m.__name__ for m in models(Strict) if m.__pydantic_complete__)]
""")
    every, built, after_one = data["result"]
    assert {"Config", "Recipe", "BenchRun", "HookEntry", "ServiceEntry"} <= set(every)
    assert built == []
    assert after_one == ["Node"]


def test_plan_text_and_sh_never_import_textual() -> None:
    data = modules_after(f"""
import io, contextlib
import sparktui.cli
codes = []
for fmt in ("text", "sh"):
    with contextlib.redirect_stdout(io.StringIO()):
        codes.append(sparktui.cli.main(["--config", {str(EXAMPLE_CONFIG)!r}, "--recipes",
                                        {str(RECIPES)!r}, "plan", "qwen3-235b-2node", "-f", fmt]))
result = codes
""")
    assert data["result"] == [0, 0]
    assert _loaded(data["modules"], "textual") == []


@pytest.mark.parametrize("package", ["sparktui.config", "sparktui.plan",
                                     "sparktui.plan.render", "sparktui.plan.hf",
                                     "sparktui.plan.fit.hub"])
def test_pure_layers_import_no_side_effects(package: str) -> None:
    data = modules_after(f"import {package}\nresult = {package!r}")
    modules = data["modules"]
    assert package in modules
    for forbidden in ("asyncssh", "textual", "sparktui.engine", "sparktui.tui", "httpx",
                      "huggingface_hub"):
        assert _loaded(modules, forbidden) == [], forbidden


# -- static: the direction of imports, file by file ------------------------------------------

LAYERS = ("config", "plan", "engine", "present", "tui", "cli")
FORBIDDEN = {
    "config": {"plan", "engine", "present", "tui", "cli"},
    "plan": {"engine", "present", "tui", "cli"},
    "engine": {"present", "tui", "cli"},
    "present": {"tui", "cli"},
}
"""``present`` (the words of the engine's values) sits between the engine and the
front-ends: it reads the engine through its API only, like them."""
BASE = ("resources", "visible", "scrub", "untrusted_json", "i18n", "i18n_catalogs",
        "exitcodes", "fmt", "errors", "said", "steps", "labels")
"""The root modules under every layer, in their own order: each imports no layer, and of
the root modules only those before it. Read from the code: resources (the data folder),
visible and scrub (what text may reach a terminal or a log), untrusted_json, then the
language (i18n; i18n_catalogs is its maintainer's tool), exitcodes, fmt (numbers in the
language), errors (problems as codes), said (a sentence as a code and its values, its
words made when shown), steps (the codes of an action's steps, states and outcomes, whose
details may be sentences as data) and labels (the words of the step codes, which the
engine and the front-ends use)."""
ENTRY = ("__init__", "__main__")
"""The package itself (empty) and ``python -m sparktui``, which calls the CLI: above
every layer, imported by none."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, text: str | None = None) -> set[str]:
    """Every module a file imports, anywhere in it, with relative imports resolved."""
    source = path.read_text(encoding="utf-8") if text is None else text
    tree = ast.parse(source, filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else \
        module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "sparktui":
        return parts[1]
    return None


def source_files(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_direction(layer: str) -> None:
    files = source_files(layer)
    assert files, f"no sources under sparktui/{layer}"
    offences = []
    for path in files:
        for module in imports_of(path):
            if layer_of(module) in FORBIDDEN[layer]:
                offences.append(f"{path.relative_to(REPO)} imports {module}")
    assert offences == []


FRONT_ENDS = ("present", "tui", "cli")
ENGINE_API = "sparktui.engine.api"


def past_the_api(module: str) -> bool:
    """An engine module other than its API (and the names the API exports). The engine
    package itself is what every ``from sparktui.engine.x import y`` names first: the
    ``x`` that follows is what is checked."""
    if not module.startswith("sparktui.engine."):
        return False
    return module != ENGINE_API and not module.startswith(ENGINE_API + ".")


@pytest.mark.parametrize("layer", FRONT_ENDS)
def test_front_ends_import_the_engine_through_its_api_only(layer: str) -> None:
    """Operations and values alike: what the engine offers the dashboard and the CLI (and
    the words they show of it) is in ``sparktui.engine.api``, so the engine's modules can
    change behind it."""
    offences = [f"{path.relative_to(REPO)} imports {module}"
                for path in source_files(layer) for module in sorted(imports_of(path))
                if past_the_api(module)]
    assert offences == []


def test_the_api_check_sees_every_way_past_the_api() -> None:
    pretend = PACKAGE / "tui" / "widgets" / "probe.py"
    source = ("from sparktui.engine.api import Workload\n"
              "def f():\n    from ...engine.status import ClusterHealth\n"
              "    from sparktui.engine import cluster\n    import sparktui.engine.doctor\n")
    found = sorted(m for m in imports_of(pretend, source) if past_the_api(m))
    assert found == ["sparktui.engine.cluster", "sparktui.engine.doctor",
                     "sparktui.engine.status", "sparktui.engine.status.ClusterHealth"]


def root_module(module: str) -> str | None:
    """``errors`` for ``sparktui.errors`` (and its names); None for a layer's modules and
    for the (empty) package itself, which ``from sparktui import x`` names."""
    parts = module.split(".")
    if parts[0] != "sparktui" or len(parts) == 1:
        return None
    return parts[1] if parts[1] not in LAYERS else None


def test_every_root_module_has_its_place() -> None:
    """A new module at the root is placed in BASE (with its order) or ENTRY on purpose."""
    found = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert found == sorted(BASE + ENTRY)


@pytest.mark.parametrize("name", BASE)
def test_base_modules_import_no_layer_and_only_the_base_before_them(name: str) -> None:
    imported = imports_of(PACKAGE / f"{name}.py")
    assert [m for m in imported if layer_of(m) in LAYERS] == [], f"{name}.py imports a layer"
    below = set(BASE[:BASE.index(name)])
    roots = {r for m in imported if (r := root_module(m)) is not None}
    assert roots <= below, f"{name}.py imports {sorted(roots - below)}, not before it in BASE"


def test_no_layer_imports_the_entry() -> None:
    offences = [f"{path.relative_to(REPO)} imports {module}"
                for layer in LAYERS for path in source_files(layer)
                for module in imports_of(path) if root_module(module) == "__main__"]
    assert offences == []


def test_static_check_sees_relative_and_lazy_imports() -> None:
    """The checker itself: lazy and relative imports of forbidden layers are caught."""
    pretend = PACKAGE / "plan" / "render" / "probe.py"
    source = "def f():\n    from ...engine import transport\n    import sparktui.tui.app\n"
    found = imports_of(pretend, source)
    assert "sparktui.engine.transport" in found
    assert "sparktui.tui.app" in found
    assert {layer_of(m) for m in found} & FORBIDDEN["plan"] == {"engine", "tui"}
