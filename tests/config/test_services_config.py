"""Every services/pools input error: FILE:LINE: FIELD: message, at load or at plan time.

As in test_config_errors, each case names a ``needle`` (text unique to the line the
error must point at); the expected line is computed from the fixture text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, line_of, load_cfg, load_rec, problem_of, recipe_file
from services_support import QUAD, SERVICES_ONLY, svc

from sparktui.cli import main
from sparktui.config.loader import load_recipe
from sparktui.plan.build import build_plan


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    needle: str | None
    field: str | None
    message: str


LOAD_CASES = [
    Case("services-only-sets-model", SERVICES_ONLY + 'model = "org/m"\n' + svc(""),
         'model = "org/m"', "model", "this recipe has no 'engine'"),
    Case("services-only-sets-env", SERVICES_ONLY + svc("") + '\n[env]\nX = "1"\n',
         "[env]", "env", "this recipe has no 'engine'"),
    Case("nothing-to-run", 'description = "empty"\n', None, "engine",
         "required field is missing"),
    Case("engine-missing-image", 'engine = "vllm"\nmodel = "m"\n', None, "docker_image",
         "required field is missing"),
    Case("engine-frontend-none", VLLM_MIN + '\n[frontend]\ntype = "none"\n', 'type = "none"',
         "frontend.type", 'is for services-only recipes'),
    Case("services-only-frontend-dynamo", SERVICES_ONLY + '\n[frontend]\ntype = "dynamo"\n'
         + svc(""), 'type = "dynamo"', "frontend.type", "needs an 'engine'"),
    Case("frontend-port-without-dynamo", VLLM_MIN + '\n[frontend]\nport = 9000\n', "port = 9000",
         "frontend.port", "applies to type = \"dynamo\" only"),
    Case("frontend-bad-type", VLLM_MIN + '\n[frontend]\ntype = "triton"\n', 'type = "triton"',
         "frontend.type", "must be one of"),
    Case("name-invalid", SERVICES_ONLY + svc("", name="my svc"), 'name = "my svc"',
         "services[0].name", "'my svc' is not a valid name"),
    Case("name-duplicate", SERVICES_ONLY + svc('command = ["a"]\n')
         + '\n[[services]]\nname = "a"  # again\n', "# again", "services[1].name",
         "'a' is defined twice"),
    Case("name-env-clash", SERVICES_ONLY + svc("", name="a-b") + svc("", name="a_b"),
         'name = "a_b"', "services[1].name", "both give SPARKTUI_SERVICE_A_B_*"),
    Case("unknown-key", SERVICES_ONLY + svc('imagee = "x"\n'), "imagee", "services[0].imagee",
         "unknown key"),
    Case("nodes-wrong-type", SERVICES_ONLY + svc('nodes = "2"\n'), 'nodes = "2"',
         "services[0].nodes", "expected integer, got string"),
    Case("nodes-zero", SERVICES_ONLY + svc("nodes = 0\n"), "nodes = 0", "services[0].nodes",
         "must be at least 1"),
    Case("bad-start", SERVICES_ONLY + svc('start = "later"\n'), 'start = "later"',
         "services[0].start", "must be one of"),
    Case("bad-placement-node", SERVICES_ONLY + svc('placement = { node = "gpu" }\n'),
         'node = "gpu"', "services[0].placement.node", "must be one of"),
    Case("pool-and-node", SERVICES_ONLY + svc("nodes = 1\n", name="o")
         + svc('placement = { node = "head", pool = "o" }\n'), 'pool = "o"',
         "services[1].placement.pool", "not both"),
    Case("owner-rides", SERVICES_ONLY + svc("nodes = 1\n", name="o")
         + svc('nodes = 1\nplacement = { pool = "o" }\n'), 'placement = { pool = "o" }',
         "services[1].placement.pool", "cannot also ride"),
    Case("owner-placement", SERVICES_ONLY + svc('nodes = 2\nplacement = { node = "head" }\n'),
         'node = "head"', "services[0].placement.node", "runs on its own pool"),
    Case("pool-unknown", SERVICES_ONLY + svc("nodes = 1\n", name="o")
         + svc('placement = { pool = "trian" }\n'), 'pool = "trian"',
         "services[1].placement.pool", "no enabled service owns a pool named 'trian'; pool "
         "owners: o"),
    Case("pool-of-disabled-owner", SERVICES_ONLY + svc("nodes = 1\nenabled = false\n", name="o")
         + svc('placement = { pool = "o" }\n'), 'pool = "o"', "services[1].placement.pool",
         "pool owners: -"),
    Case("readiness-port-for-log", SERVICES_ONLY + svc('readiness = { log = "up", port = 1 }\n'),
         "readiness", "services[0].readiness.port", "'port' does not apply to a log"),
    Case("readiness-http-without-port", SERVICES_ONLY + svc('readiness = { kind = "http" }\n'),
         "readiness", "services[0].readiness", "a http readiness probe needs 'port'"),
    Case("readiness-none-with-port", SERVICES_ONLY
         + svc('readiness = { kind = "none", port = 9 }\n'), "readiness",
         "services[0].readiness.port", "does not apply to a none"),
    Case("readiness-bad-regex", SERVICES_ONLY + svc('readiness = { log = "ready(" }\n'),
         "ready(", "services[0].readiness.log", "not a valid regular expression"),
    Case("readiness-timeout-zero", SERVICES_ONLY + svc("readiness = { timeout = 0 }\n"),
         "timeout", "services[0].readiness.timeout", "must be greater than 0"),
    Case("metrics-names-required", SERVICES_ONLY
         + svc('metrics = [\n  { port = 1 },\n  { port = 2, name = "b" },\n]\n'), "{ port = 1 }",
         "services[0].metrics[0]", "each needs a 'name'"),
    Case("metrics-missing-port", SERVICES_ONLY + svc('metrics = { path = "/m" }\n'),
         "metrics =", "services[0].metrics[0].port", "required field is missing"),
    Case("mount-relative", SERVICES_ONLY
         + svc('mounts = [\n  { host = "data", container = "/d" },\n]\n'), 'host = "data"',
         "services[0].mounts[0].host", "must be absolute"),
    Case("env-wrong-type", SERVICES_ONLY + svc("env = { N = 1 }\n"), "env =",
         "services[0].env.N", "expected string, got integer"),
    Case("telemetry-wrong-type", VLLM_MIN + 'telemetry = "yes"\n', "telemetry",
         "telemetry", "expected boolean, got string"),
]


def _check(problem, path: Path, case: Case) -> None:
    text = path.read_text()
    line = line_of(text, case.needle) if case.needle else None
    assert (problem.file, problem.line, problem.field) == (path, line, case.field)
    assert case.message in problem.message()
    where = f"{path}:{line}" if line else str(path)
    assert problem.render().startswith(f"{where}: {case.field}: ")


@pytest.mark.parametrize("case", LOAD_CASES, ids=lambda c: c.id)
def test_recipe_problem_is_located(tmp_path: Path, case: Case) -> None:
    path = recipe_file(tmp_path, case.text)
    err = problem_of(lambda: load_recipe(path))
    assert len(err.problems) == 1, err.render()
    _check(err.problems[0], path, case)


PLAN_CASES = [
    Case("unknown-type", SERVICES_ONLY + svc('type = "redis"\ncommand = ["x"]\n'),
         'type = "redis"', "services[0].type", "unknown service type 'redis'; known: "
         "dcgm-exporter, dynamo-frontend, etcd, generic, mooncake-master, mooncake-store, "
         "nats, node-exporter"),
    Case("unknown-option", SERVICES_ONLY + svc('type = "nats"\noptions = { max_payload = 8 }\n'),
         "options =", "services[0].options.max_payload",
         "unknown option 'max_payload' for a nats service; known: max_payload_mb"),
    Case("option-out-of-range", SERVICES_ONLY
         + svc('type = "nats"\noptions = { max_payload_mb = 100 }\n'), "options =",
         "services[0].options.max_payload_mb", "must be an integer from 1 to 64"),
    Case("option-wrong-type", SERVICES_ONLY
         + svc('type = "nats"\noptions = { max_payload_mb = "8" }\n'), "options =",
         "services[0].options.max_payload_mb", "must be an integer"),
    Case("generic-takes-no-options", SERVICES_ONLY
         + svc('command = ["x"]\n[services.options]\ncolor = "red"\n'), "color",
         "services[0].options.color", "known: -"),
    Case("no-image", svc('command = ["x"]\n').lstrip("\n"), '[[services]]', "services[0]",
         "service 'a' needs an 'image'"),
    Case("tmux-no-command", SERVICES_ONLY + svc('runtime = "tmux"\n'), '[[services]]',
         "services[0]", "needs a 'command' to run in tmux"),
    Case("workers-without-engine", SERVICES_ONLY
         + svc('command = ["x"]\nplacement = { node = "workers" }\n'), 'node = "workers"',
         "services[0].placement.node", "placement 'workers' matches no node"),
    Case("frontend-port-clash", VLLM_MIN + "port = 8000\n[frontend]\ntype = \"dynamo\"\n",
         "[frontend]", "frontend.port", "port 8000 is the engine's port"),
    Case("declared-replacement-bad-option", VLLM_MIN + '[frontend]\ntype = "dynamo"\n'
         + svc("options = { max_payload_mb = 0 }\n", name="nats"), "options =",
         "services[0].options.max_payload_mb", "from 1 to 64"),
]


@pytest.mark.parametrize("case", PLAN_CASES, ids=lambda c: c.id)
def test_plan_problem_is_located(tmp_path: Path, case: Case) -> None:
    cfg = load_cfg(tmp_path, QUAD)
    rec = load_rec(tmp_path, case.text)
    err = problem_of(lambda: build_plan(cfg, rec))
    assert len(err.problems) == 1, err.render()
    _check(err.problems[0], tmp_path / "recipes" / "demo" / "recipe.toml", case)


def test_several_service_problems_together(tmp_path: Path) -> None:
    text = SERVICES_ONLY + svc('readiness = { log = "(" }\n') + svc("nodes = 0\n", name="b")
    path = recipe_file(tmp_path, text)
    err = problem_of(lambda: load_recipe(path))
    assert [p.field for p in err.problems] == ["services[1].nodes"]  # pydantic first
    text = SERVICES_ONLY + svc('readiness = { log = "(" }\n') + svc("", name="b c")
    path = recipe_file(tmp_path, text)
    err = problem_of(lambda: load_recipe(path))
    assert [p.field for p in err.problems] == ["services[0].readiness.log", "services[1].name"]


# -- the same through the command line: exit 2, the located line on stderr, no traceback ----


@pytest.mark.parametrize("case", [c for c in LOAD_CASES + PLAN_CASES
                                  if c.id in ("pool-unknown", "unknown-option", "no-image",
                                              "services-only-sets-model")],
                         ids=lambda c: c.id)
def test_problem_through_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             case: Case) -> None:
    path = recipe_file(tmp_path, case.text)
    config = tmp_path / "config.toml"
    config.write_text(QUAD)
    code = main(["--lang", "en", "--config", str(config), "--recipes", str(tmp_path / "recipes"),
                 "plan", "demo", "-f", "json"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "Traceback" not in err
    line = line_of(path.read_text(), case.needle) if case.needle else None
    where = f"{path}:{line}" if line else str(path)
    assert err.startswith(f"{where}: {case.field}: ") and case.message in err


def test_engine_recipe_still_needs_image_and_model_together(tmp_path: Path) -> None:
    path = recipe_file(tmp_path, 'engine = "sglang"\n')
    err = problem_of(lambda: load_recipe(path))
    assert [p.field for p in err.problems] == ["docker_image", "model"]


def test_duo_config_still_plans_engine_recipes(tmp_path: Path) -> None:
    plan = build_plan(load_cfg(tmp_path, DUO), load_rec(tmp_path, VLLM_MIN))
    assert plan.services == [] and plan.frontend == "engine"
