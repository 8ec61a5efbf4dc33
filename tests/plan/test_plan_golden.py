"""Golden files: ``sparktui plan`` output for every example recipe, byte for byte.

``tests/plan/golden/<recipe>.<cluster>.{txt,json,sh}`` hold the text, JSON and sh plans
of each recipe in ``recipes/`` against ``examples/config.toml`` (on the cluster
``auto`` picks, plus a few chosen by name) and, for the single-node recipes, on
the built-in ``local`` cluster (hostname, user and home pinned to fixed values).

After an intended change, regenerate them and review the diff:

    SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_plan_golden.py
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from plan_support import EXAMPLE_CONFIG, EXAMPLE_RECIPES, RECIPES, REPO

from sparktui.cli import main
from sparktui.config.loader import load_recipe
from sparktui.config.models import Cluster, Node
from sparktui.plan.cluster import nodes_needed

GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = "SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_plan_golden.py"
UPDATE = os.environ.get("SPARKTUI_UPDATE_GOLDEN") == "1"
EXTENSIONS = {"text": "txt", "json": "json", "sh": "sh"}
LOCAL_HOST, LOCAL_USER, LOCAL_HOME = "workstation", "operator", "/home/operator"

_ONE = Cluster(name="one", nodes=[Node(name="n", ssh_ip="127.0.0.1", rank=0)])
SINGLE_NODE = [r for r in EXAMPLE_RECIPES
               if nodes_needed(load_recipe(RECIPES / r / "recipe.toml").recipe, _ONE) == 1]

# (recipe, --cluster value or None for the default, cluster named in the file)
CASES: list[tuple[str, str | None, str]] = [
    ("glm-4.5-air-mtp", None, "2nodes"),
    ("gpt-oss-120b-sglang", None, "2nodes"),
    ("llama-3.3-70b-ray", None, "2nodes"),
    ("qwen3-235b-2node", None, "2nodes"),
    ("qwen3-30b-tmux", None, "2nodes"),
    ("qwen3-235b-2node", "2nodes-b", "2nodes-b"),
    ("glm-4.5-air-mtp", "4", "4nodes-switch"),
    ("qwen3-30b-dynamo", None, "4nodes-switch"),  # 2 engine nodes + a dedicated one
    ("pools-toy", None, "4nodes-switch"),  # services only: two pools and a rider
    *((r, None, "local") for r in SINGLE_NODE),
]


def _stem(case: tuple[str, str | None, str]) -> str:
    return f"{case[0]}.{case[2]}"


@pytest.fixture
def pinned_local(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The built-in cluster reads hostname, user and home: pin them, and find no config."""
    for name in ("SPARKTUI_CONFIG", "SPARKTUI_RECIPES"):
        monkeypatch.delenv(name, raising=False)
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, LOCAL_USER)
    monkeypatch.setenv("HOME", LOCAL_HOME)
    monkeypatch.setattr(socket, "gethostname", lambda: LOCAL_HOST)
    monkeypatch.chdir(tmp_path)


def plan_output(capsys: pytest.CaptureFixture[str], recipe: str, cluster: str | None,
                on_local: bool, fmt: str) -> str:
    argv = ["--lang", "en", "--recipes", str(RECIPES)]
    if not on_local:
        argv += ["--config", str(EXAMPLE_CONFIG)]
    argv += ["plan", recipe, "--format", fmt]
    if cluster is not None:
        argv += ["--cluster", cluster]
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
@pytest.mark.parametrize("case", CASES, ids=_stem)
def test_golden(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str],
                case: tuple[str, str | None, str], fmt: str) -> None:
    recipe, cluster, named = case
    on_local = named == "local"
    if on_local:
        request.getfixturevalue("pinned_local")
    out = plan_output(capsys, recipe, cluster, on_local, fmt)
    assert f"cluster {named}" in out or f'"cluster": "{named}"' in out
    assert str(REPO) not in out and str(Path.cwd()) not in out  # nothing from this machine
    path = GOLDEN / f"{_stem(case)}.{EXTENSIONS[fmt]}"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(out, encoding="utf-8", newline="\n")
    assert path.is_file(), f"{path.name} is missing; create it with {REGENERATE}"
    expected = path.read_text(encoding="utf-8")
    assert out == expected, (f"plan differs from {path.name}; if intended, regenerate with "
                             f"{REGENERATE}")


def test_every_example_recipe_has_goldens() -> None:
    covered = {case[0] for case in CASES}
    assert covered == set(EXAMPLE_RECIPES)
    assert SINGLE_NODE == ["gpt-oss-120b-sglang", "qwen3-30b-tmux"]


def test_no_stale_golden_files() -> None:
    expected = {f"{_stem(c)}.{ext}" for c in CASES for ext in EXTENSIONS.values()}
    present = {p.name for p in GOLDEN.iterdir()
               if p.is_file() and p.suffix != ".sbatch"}  # test_plan_sbatch*.py's
    assert present == expected


def test_golden_files_are_stable_text() -> None:
    for path in GOLDEN.iterdir():
        data = path.read_bytes()
        assert b"\r" not in data and data.endswith(b"\n"), path.name
        assert str(REPO).encode() not in data, path.name
