"""Bad input is reported as FILE:LINE: FIELD: message, for config and recipes alike.

Each case names a ``needle``: a text unique to the line the error must point at.
The expected line is computed from the fixture, so moving a line moves the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from plan_support import (
    DUO,
    VLLM_MIN,
    config_file,
    dedent,
    line_of,
    load_cfg,
    load_rec,
    problem_of,
    recipe_file,
)

from sparktui.cli import main
from sparktui.config.loader import load_config, load_recipe
from sparktui.errors import Problem
from sparktui.plan.build import build_plan

NODE_A = '{ name = "a", ssh_ip = "10.0.0.1", rank = 0 }'
NODE_B = '{ name = "b", ssh_ip = "10.0.0.2", rank = 1 }'


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    needle: str | None  # None: no line can be known (e.g. a missing top-level key)
    field: str | None
    message: str


CONFIG_CASES = [
    Case("broken-toml", f'ssh_user = "ops\n[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n',
         'ssh_user = "ops', None, "broken TOML: Illegal character"),
    Case("broken-toml-unclosed", f'[[clusters]]\nname = "c"\nnodes = [\n  {NODE_A}\n\n'
         '[nccl."c"]\n', '[nccl."c"]', None, "broken TOML: Unclosed array"),
    Case("unknown-top-level", f'ssh_user = "ops"\nssh_usr = "typo"\n[[clusters]]\nname = "c"\n'
         f"nodes = [{NODE_A}]\n", "ssh_usr", "ssh_usr", "unknown key"),
    Case("unknown-nested-table", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n'
         '[home_assistant]\nurl = "http://h"\ntoken = "t-long-lived-token"\n'
         'shutdown_delay = 3\n',
         "shutdown_delay", "home_assistant.shutdown_delay", "unknown key"),
    Case("unknown-in-inline-node", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "b", ssh_ip = "10.0.0.2", rank = 1, sshport = 22 }},\n]\n',
         "sshport", "clusters[0].nodes[1].sshport", "unknown key"),
    Case("unknown-in-nccl", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n[nccl."c"]\n'
         'ib_hca = "x"\nib_gid = 3\n', "ib_gid =", "nccl.c.ib_gid", "unknown key"),
    Case("wrong-type-rank", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "b", ssh_ip = "10.0.0.2", rank = "1" }},\n]\n',
         'rank = "1"', "clusters[0].nodes[1].rank", "expected integer, got string"),
    Case("wrong-type-gpus", f'[[clusters]]\nname = "c"\ngpus_per_node = 1.5\nnodes = [{NODE_A}]\n',
         "gpus_per_node", "clusters[0].gpus_per_node", "expected integer, got float"),
    Case("wrong-type-bool", '[[clusters]]\nname = "c"\nnodes = [\n'
         '  { name = "a", ssh_ip = "10.0.0.1", rank = 0, local = "yes" },\n]\n',
         'local = "yes"', "clusters[0].nodes[0].local", "expected boolean, got string"),
    Case("wrong-type-aliases", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n[exec_aliases]\n'
         'gpu = ["nvidia-smi"]\n', "gpu =", "exec_aliases.gpu", "expected string, got array"),
    Case("missing-ssh-ip", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "b", rank = 1 }},\n]\n', 'name = "b"',
         "clusters[0].nodes[1].ssh_ip", "required field is missing"),
    Case("missing-ha-token", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n[home_assistant]\n'
         'url = "http://h"\n', "[home_assistant]", "home_assistant.token",
         "required field is missing"),
    Case("duplicate-rank", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "b", ssh_ip = "10.0.0.2", rank = 0 }},\n]\n',
         'name = "b"', "clusters[0].nodes[1].rank", "rank 0 is used by 'a' and 'b'"),
    Case("rank-gap", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "b", ssh_ip = "10.0.0.2", rank = 2 }},\n]\n',
         "nodes = [", "clusters[0].nodes", "ranks must be 0..1 without gaps, got 0, 2"),
    Case("rank-negative", '[[clusters]]\nname = "c"\nnodes = [\n'
         '  { name = "a", ssh_ip = "10.0.0.1", rank = -1 },\n]\n', "rank = -1",
         "clusters[0].nodes[0].rank", "must be at least 0"),
    Case("ssh-port-range", '[[clusters]]\nname = "c"\nnodes = [\n'
         '  { name = "a", ssh_ip = "10.0.0.1", rank = 0, ssh_port = 70000 },\n]\n',
         "ssh_port", "clusters[0].nodes[0].ssh_port", "must be at most 65535"),
    Case("duplicate-node-name", '[[clusters]]\nname = "c"\nnodes = [\n'
         f'  {NODE_A},\n  {{ name = "a", ssh_ip = "10.0.0.2", rank = 1 }},\n]\n',
         'ssh_ip = "10.0.0.2"', "clusters[0].nodes[1].name", "'a' is defined twice"),
    Case("nccl-unknown-cluster", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n\n'
         '[nccl."x"]\nib_hca = "h"\n', '[nccl."x"]', "nccl.x", "no cluster named 'x'"),
    Case("before-serve-unknown-cluster", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n\n'
         '[before_serve."y"]\ncommands = ["true"]\n', '[before_serve."y"]', "before_serve.y",
         "no cluster named 'y'"),
    Case("unknown-script-in-config", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n\n'
         '[before_serve."c"]\ncommands = [\n  "true",\n  { script = "reboot_all" },\n]\n',
         "reboot_all", "before_serve.c.commands[1].script",
         "unknown built-in script 'reboot_all'; known: restore_dgx_services, stop_dgx_services"),
    Case("aot-nodes-form", '[[clusters]]\nname = "c"\n[[clusters.nodes]]\nname = "a"\n'
         'ssh_ip = "10.0.0.1"\nrank = 0\n[[clusters.nodes]]\nname = "b"\nssh_ip = "x"\n'
         'rank = "one"\n', 'rank = "one"', "clusters[0].nodes[1].rank",
         "expected integer, got string"),
    Case("second-cluster", f'[[clusters]]\nname = "c"\nnodes = [{NODE_A}]\n\n[[clusters]]\n'
         'name = "d"\nnodes = [{ name = "z", ssh_ip = "1", rank = 0, entity = 7 }]\n',
         "entity = 7", "clusters[1].nodes[0].entity", "expected string, got integer"),
]

RECIPE_CASES = [
    Case("broken-toml", VLLM_MIN + 'args = ["--a",\n  "--b"\nport = 1\n', "port = 1", None,
         "broken TOML"),
    Case("unknown-top-level", VLLM_MIN + "tensor_parallel = 2\n", "tensor_parallel",
         "tensor_parallel", "unknown key"),
    Case("unknown-in-extra-mounts", VLLM_MIN + '[[extra_mounts]]\nhost = "/a"\n'
         'container = "/a"\n\n[[extra_mounts]]\nhost = "/b"\ncontainer = "/b"\n'
         'readonly = true\n', "readonly",
         "extra_mounts[1].readonly", "unknown key"),
    Case("unknown-in-inline-hook", VLLM_MIN + 'before_serve = [\n  "true",\n'
         '  { command = "x", on_falure = "warn" },\n]\n', "on_falure",
         "before_serve[1].on_falure", "unknown key"),
    Case("unknown-in-mods", VLLM_MIN + 'entrypoint = ["vllm"]\n[mods]\ncommands = []\n'
         'shell = "sh"\n', "shell =", "mods.shell", "unknown key"),
    Case("wrong-type-port", VLLM_MIN + 'port = "8000"\n', "port =", "port",
         "expected integer, got string"),
    Case("wrong-type-args", VLLM_MIN + 'args = "--x"\n', "args =", "args",
         "expected array, got string"),
    Case("wrong-type-env", VLLM_MIN + '[env]\nOK = "1"\nNUM = 2\n', "NUM", "env.NUM",
         "expected string, got integer"),
    Case("wrong-type-shm", VLLM_MIN + "shm_size = 64\n", "shm_size", "shm_size",
         "expected string, got integer"),
    Case("bad-engine", VLLM_MIN.replace('"vllm"', '"trtllm"'), "engine", "engine",
         "must be one of: 'vllm' or 'sglang'"),
    Case("bad-on-failure", VLLM_MIN + 'after_stop = [{ command = "x", on_failure = "ignore" }]\n',
         "after_stop", "after_stop[0].on_failure", "must be one of: 'abort' or 'warn'"),
    Case("missing-model", 'engine = "vllm"\ndocker_image = "i"\n', None, "model",
         "required field is missing"),
    Case("missing-mount-container", VLLM_MIN + '\n[[extra_mounts]]\nhost = "/a"\n',
         "[[extra_mounts]]", "extra_mounts[0].container", "required field is missing"),
    Case("mods-without-entrypoint", VLLM_MIN + '\n[mods]\ncommands = ["pip install x"]\n',
         "[mods]", "mods", "[mods] needs 'entrypoint'"),
    Case("mods-script", VLLM_MIN + 'entrypoint = ["vllm"]\n[mods]\ncommands = [\n'
         '  { script = "stop_dgx_services" },\n]\n', "script =", "mods.commands[0].script",
         "use a command, not a host script"),
    Case("alias-and-repo", VLLM_MIN + '[[extra_mounts]]\nalias = "jit"\nrepo = "org/r"\n'
         'container = "x"\n', "repo =", "extra_mounts[0].repo", "either alias/host or repo"),
    Case("repo-with-host", VLLM_MIN + '[[extra_mounts]]\nrepo = "org/r"\nhost = "/h"\n'
         'container = "x"\n', "host =", "extra_mounts[0].host", "'host' does not apply"),
    Case("mount-no-source", VLLM_MIN + '\n[[extra_mounts]]\ncontainer = "/x"\nread_only = true\n',
         "[[extra_mounts]]", "extra_mounts[0]", "a mount needs 'alias', 'host' or 'repo'"),
    Case("unknown-script", VLLM_MIN + 'after_stop = [\n  { script = "restore_everything" },\n]\n',
         "restore_everything", "after_stop[0].script",
         "unknown built-in script 'restore_everything'; known: restore_dgx_services, "
         "stop_dgx_services"),
    Case("hook-both-forms", VLLM_MIN + 'before_serve = [{ command = "a", script = "b" }]\n',
         "before_serve", "before_serve[0]", "not both"),
    Case("sglang-pp", VLLM_MIN.replace('"vllm"', '"sglang"') + "pipeline_parallel_size = 2\n",
         "pipeline_parallel_size", "pipeline_parallel_size", "vLLM only"),
    Case("sglang-pp-auto", VLLM_MIN.replace('"vllm"', '"sglang"') + "pipeline_parallel_size = 0\n",
         "pipeline_parallel_size", "pipeline_parallel_size", "vLLM only"),
    Case("sglang-ray", VLLM_MIN.replace('"vllm"', '"sglang"') + 'distributed_backend = "ray"\n',
         "distributed_backend", "distributed_backend", "vLLM only"),
    Case("name-set", VLLM_MIN + '\nname = "other"\n', 'name = "other"', "name",
         "comes from the recipe's folder"),
    Case("unknown-placeholder", VLLM_MIN + 'args = [\n  "--draft",\n  "{{draft}}",\n]\n',
         "{{draft}}", "args[1]", "'{{draft}}' is not defined"),
    Case("tp-zero", VLLM_MIN + "tensor_parallel_size = 0\n", "tensor_parallel_size",
         "tensor_parallel_size", "must be at least 1"),
]


def _check(problem: Problem, path: Path, text: str, case: Case) -> None:
    line = line_of(text, case.needle) if case.needle else None
    assert problem.file == path
    assert problem.line == line
    assert problem.field == case.field
    assert case.message in problem.message()
    where = f"{path}:{line}" if line else str(path)
    prefix = f"{where}: {case.field}: " if case.field else f"{where}: "
    assert problem.render().startswith(prefix)
    assert problem.render().endswith(problem.message())


@pytest.mark.parametrize("case", CONFIG_CASES, ids=lambda c: c.id)
def test_config_problem_is_located(tmp_path: Path, case: Case) -> None:
    path = config_file(tmp_path, case.text)
    err = problem_of(lambda: load_config(path))
    assert err.exit_code == 2
    assert len(err.problems) == 1, err.render()
    _check(err.problems[0], path, path.read_text(), case)


@pytest.mark.parametrize("case", RECIPE_CASES, ids=lambda c: c.id)
def test_recipe_problem_is_located(tmp_path: Path, case: Case) -> None:
    path = recipe_file(tmp_path, case.text)
    err = problem_of(lambda: load_recipe(path))
    assert len(err.problems) == 1, err.render()
    _check(err.problems[0], path, path.read_text(), case)


VLLM_FLAGS = ["--nnodes", "--node-rank", "--master-addr", "--master-port", "--headless",
              "--host", "--port", "--tensor-parallel-size", "-tp", "--pipeline-parallel-size",
              "-pp", "--distributed-executor-backend"]
SGLANG_FLAGS = ["--tp", "--tp-size", "--nnodes", "--node-rank", "--dist-init-addr", "--host",
                "--port", "--model-path"]


@pytest.mark.parametrize(("engine", "flag"), [("vllm", f) for f in VLLM_FLAGS]
                         + [("sglang", f) for f in SGLANG_FLAGS])
@pytest.mark.parametrize("form", ["separate", "equals"])
def test_launcher_owned_flag_in_args(tmp_path: Path, engine: str, flag: str, form: str) -> None:
    arg = f"{flag}=8000" if form == "equals" else flag
    recipe_text = (VLLM_MIN.replace('"vllm"', f'"{engine}"')
                   + f'args = [\n  "--served-model-name", "x",\n  "{arg}",\n  "9",\n]\n')
    cfg = load_cfg(tmp_path, DUO)
    rec = load_rec(tmp_path, recipe_text)
    err = problem_of(lambda: build_plan(cfg, rec))
    (problem,) = err.problems
    path = tmp_path / "recipes" / "demo" / "recipe.toml"
    assert problem.file == path
    assert problem.line == line_of(path.read_text(), f'"{arg}"')
    assert problem.field == "args[2]"
    assert problem.render().startswith(f"{path}:{problem.line}: args[2]: '{flag}' is set by")


@pytest.mark.parametrize("arg", ["--portal", "--hostname-check", "--tp2", "--served-model-name"])
def test_similar_but_free_flags_pass(tmp_path: Path, arg: str) -> None:
    recipe_text = VLLM_MIN + f'args = ["{arg}"]\n'
    plan = build_plan(load_cfg(tmp_path, DUO), load_rec(tmp_path, recipe_text))
    assert arg in plan.head.launch


def test_several_problems_are_reported_together(tmp_path: Path) -> None:
    text = dedent(f"""
        [[clusters]]
        name = "c"
        nodes = [
          {NODE_A},
          {{ name = "b", ssh_ip = "10.0.0.2", rank = 3 }},
        ]

        [nccl."ghost"]
        ib_hca = "h"
    """)
    path = config_file(tmp_path, text)
    err = problem_of(lambda: load_config(path))
    assert [(p.field, p.line) for p in err.problems] == [
        ("clusters[0].nodes", line_of(text, "nodes = [")),
        ("nccl.ghost", line_of(text, '[nccl."ghost"]')),
    ]
    assert err.render().count(str(path)) == 2


def test_unknown_mount_alias_without_host(tmp_path: Path) -> None:
    text = VLLM_MIN + '\n[[extra_mounts]]\nalias = "scratch"\ncontainer = "/scratch"\n'
    rec = load_rec(tmp_path, text)
    err = problem_of(lambda: build_plan(load_cfg(tmp_path, DUO), rec))
    (problem,) = err.problems
    assert problem.field == "extra_mounts[0].alias"
    assert problem.line == line_of(dedent(text), 'alias = "scratch"')
    assert "'scratch' is not in [mount_aliases]" in problem.message()


# -- the same cases through the command line: exit 2, one line on stderr, no traceback -------


def _cli_error(capsys: pytest.CaptureFixture[str], config: Path, recipes: Path) -> str:
    code = main(["--lang", "en", "--config", str(config), "--recipes", str(recipes), "plan",
                 "demo", "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("case", CONFIG_CASES, ids=lambda c: c.id)
def test_config_problem_through_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    case: Case) -> None:
    path = config_file(tmp_path, case.text)
    recipe_file(tmp_path, VLLM_MIN)
    err = _cli_error(capsys, path, tmp_path / "recipes")
    expected = problem_of(lambda: load_config(path)).render()
    assert err == expected + "\n"
    where = f"{path}:{line_of(path.read_text(), case.needle)}" if case.needle else str(path)
    assert err.startswith(f"{where}: {case.field}: " if case.field else f"{where}: ")


@pytest.mark.parametrize("case", RECIPE_CASES, ids=lambda c: c.id)
def test_recipe_problem_through_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    case: Case) -> None:
    path = recipe_file(tmp_path, case.text)
    err = _cli_error(capsys, config_file(tmp_path, DUO), tmp_path / "recipes")
    where = f"{path}:{line_of(path.read_text(), case.needle)}" if case.needle else str(path)
    assert err.startswith(f"{where}: {case.field}: " if case.field else f"{where}: ")
    assert case.message in err and err.count("\n") == 1
