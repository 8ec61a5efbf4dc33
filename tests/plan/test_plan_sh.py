"""The ``sh`` plan, executed: a fake ``ssh`` and a fake ``docker`` on PATH record what runs.

The fake ssh behaves like OpenSSH with a remote sshd: it drops its options and
``user@host``, hands the single remaining argument to ``sh -c`` (as sshd does with
the command string), and reads all of its stdin. The fake docker records its argv
as JSON. Whatever the recipe's env and args contain, the recorded argv must equal
the plan's ``launch`` for every node.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from plan_support import DUO, VLLM_MIN, load_cfg, make_plan

from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.recipe import Recipe
from sparktui.config.source import SourceRef
from sparktui.plan.build import build_plan
from sparktui.plan.engines import engine_for
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render import render_sh

FAKE_SSH = r"""#!/bin/sh
user=""
while [ $# -gt 0 ]; do
  case "$1" in
    -l) user="$2@"; shift 2 ;;
    -p|-i|-o|-F|-J) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
target="$user$1"; shift
if [ $# -ne 1 ]; then echo "fake ssh: want one command string, got $#" >&2; exit 255; fi
SPARKTUI_FAKE_TARGET="$target" sh -c "$1"
rc=$?
cat >/dev/null  # ssh forwards all of its stdin to the remote side
exit $rc
"""

FAKE_DOCKER = """#!{python} -S
import json, os, sys
with open(os.environ["SPARKTUI_FAKE_RECORD"], "a", encoding="utf-8") as f:
    f.write(json.dumps({{"target": os.environ.get("SPARKTUI_FAKE_TARGET", "local"),
                        "argv": sys.argv[1:]}}) + "\\n")
"""

KEYED = ('ssh_key_path = "~/.ssh/id_test"\nknown_hosts_path = "~/.config/sparktui/known hosts"\n'
         + DUO)


@pytest.fixture(scope="module")
def fake_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bin_dir = tmp_path_factory.mktemp("fakebin")
    (bin_dir / "ssh").write_text(FAKE_SSH, encoding="utf-8")
    (bin_dir / "docker").write_text(FAKE_DOCKER.format(python=sys.executable), encoding="utf-8")
    for name in ("ssh", "docker"):
        (bin_dir / name).chmod(0o755)
    return bin_dir


@pytest.fixture(scope="module")
def duo_config(tmp_path_factory: pytest.TempPathFactory) -> LoadedConfig:
    return load_cfg(tmp_path_factory.mktemp("cfg"), KEYED)


def run_plan_script(script: str, fake_bin: Path, work: Path, piped_to: str | None = None,
                    ) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    """``sh launch.sh``, or ``... | piped_to`` (the script on a pipe, as in ``plan -f sh | sh``)."""
    record = work / "record.jsonl"
    record.unlink(missing_ok=True)
    path = work / "launch.sh"
    path.write_text(script, encoding="utf-8")
    env = {"PATH": f"{fake_bin}{os.pathsep}{os.environ['PATH']}", "HOME": str(work),
           "SPARKTUI_FAKE_RECORD": str(record), "LC_ALL": "C.UTF-8"}
    argv = [piped_to] if piped_to else ["sh", str(path)]
    proc = subprocess.run(argv, cwd=work, env=env, input=script.encode() if piped_to else b"",
                          capture_output=True, timeout=30, check=False)
    out = subprocess.CompletedProcess(proc.args, proc.returncode,
                                      proc.stdout.decode("utf-8", "replace"),
                                      proc.stderr.decode("utf-8", "replace"))
    lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return out, unstamped([json.loads(line) for line in lines])


RUN_ID = re.compile(r"sparktui\.run=[0-9a-f]{16}")


def unstamped(records: list[dict]) -> list[dict]:
    """The records without the run id each launch's node made (plan/render/run_id.py):
    one per launch, right after ``run``, each its own."""
    ids = []
    for r in records:
        assert r["argv"][1] == "--label" and RUN_ID.fullmatch(r["argv"][2]), r["argv"]
        ids.append(r["argv"][2])
    assert len(set(ids)) == len(ids), ids
    return [{**r, "argv": r["argv"][:1] + r["argv"][3:]} for r in records]


def expected_records(plan: LaunchPlan) -> list[dict]:
    out = []
    for name in plan.start_order:
        node = plan.node(name)
        target = "local" if node.local else f"{plan.ssh_user}@{node.ssh_ip}"
        out.append({"target": target, "argv": node.launch[1:]})
    return out


# -- property: any env value or arg survives sh -> ssh -> sh -c -> argv ---------------------

_any_char = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
_nasty = st.sampled_from(["'", '"', "$(touch pwned)", "`touch pwned`", "a b", "\n", "\\",
                          "$HOME", "*", "~", ";", "&&", "|", "#", "é", "日本語", "\t", "-e",
                          "--x=1", "'\"'\"'", "\r\n", "!", "{{x}}", "%s", "\u2028"])
_piece = st.one_of(st.text(_any_char, max_size=12), _nasty)
value = st.lists(_piece, max_size=4).map("".join)
env_key = st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True)
VLLM = engine_for("vllm")


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(args=st.lists(value, max_size=5), env=st.dictionaries(env_key, value, max_size=4))
def test_any_string_survives_the_sh_plan(fake_bin: Path, duo_config: LoadedConfig,
                                         args: list[str], env: dict[str, str]) -> None:
    assume(all(VLLM.owned_flag_in(a) is None for a in args))
    recipe = Recipe.model_validate({"name": "prop", "engine": "vllm", "docker_image": "img:1",
                                    "model": "org/m", "required_nodes": 2, "args": args,
                                    "env": env, "tensor_parallel_size": 2})
    plan = build_plan(duo_config, LoadedRecipe(recipe, SourceRef(None)))
    cfg = duo_config.config
    script = render_sh(plan, scripts={}, ssh_key_path=cfg.ssh_key_path,
                       known_hosts_path=cfg.known_hosts_path)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        proc, records = run_plan_script(script, fake_bin, work)
        assert proc.returncode == 0, proc.stderr
        assert records == expected_records(plan)
        assert not (work / "pwned").exists()
    for node in plan.nodes:
        for key, val in env.items():
            assert f"{key}={val}" in node.launch


# -- deterministic runs of the script ---------------------------------------------------------

TWO = VLLM_MIN + "required_nodes = 2\ntensor_parallel_size = 2\n"
STUB_SCRIPTS = {"stop_dgx_services": "echo STOPPED-ON-$SPARKTUI_FAKE_TARGET\n",
                "restore_dgx_services": "echo RESTORED\n"}


def _render(plan: LaunchPlan) -> str:
    return render_sh(plan, scripts=STUB_SCRIPTS)


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_piped_script_runs_every_node(tmp_path: Path, fake_bin: Path, shell: str) -> None:
    """ssh reads stdin; without ``</dev/null`` bash lost every line after the first ssh."""
    if shutil.which(shell) is None:
        pytest.skip(f"no {shell}")
    plan = make_plan(tmp_path, DUO, TWO + 'before_serve = ["true"]\n')
    proc, records = run_plan_script(_render(plan), fake_bin, tmp_path, piped_to=shell)
    assert proc.returncode == 0, proc.stderr
    assert records == expected_records(plan)


def test_each_run_of_the_script_starts_runs_of_its_own(tmp_path: Path, fake_bin: Path) -> None:
    """The run id is made by each node's shell as the launch runs: a script kept and run
    again does not reuse the ids of its first run (discovery tells runs apart by them)."""
    script = _render(make_plan(tmp_path, DUO, TWO))
    seen = []
    for _ in range(2):
        proc, _records = run_plan_script(script, fake_bin, tmp_path)
        assert proc.returncode == 0, proc.stderr
        lines = (tmp_path / "record.jsonl").read_text(encoding="utf-8").splitlines()
        seen += [json.loads(line)["argv"][2] for line in lines]
    assert len(seen) == 4 and len(set(seen)) == 4, seen


def test_hooks_run_before_launch(tmp_path: Path, fake_bin: Path) -> None:
    recipe = TWO + ('before_serve = ["echo HOOK-$SPARKTUI_FAKE_TARGET",'
                    ' { script = "stop_dgx_services" }]\n')
    plan = make_plan(tmp_path, DUO, recipe)
    proc, records = run_plan_script(_render(plan), fake_bin, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["HOOK-ops@10.9.0.1", "STOPPED-ON-ops@10.9.0.1",
                                        "HOOK-ops@10.9.0.2", "STOPPED-ON-ops@10.9.0.2"]
    assert records == expected_records(plan)


def test_failing_abort_hook_stops_everything(tmp_path: Path, fake_bin: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO + 'before_serve = ["false"]\n')
    proc, records = run_plan_script(_render(plan), fake_bin, tmp_path)
    assert proc.returncode != 0
    assert records == []


def test_failing_warn_hooks_continue(tmp_path: Path, fake_bin: Path) -> None:
    stub = {**STUB_SCRIPTS, "stop_dgx_services": "exit 3\n"}
    recipe = TWO + ('before_serve = [{ command = "false", on_failure = "warn" },'
                    ' { script = "stop_dgx_services", on_failure = "warn" }]\n')
    plan = make_plan(tmp_path, DUO, recipe)
    proc, records = run_plan_script(render_sh(plan, scripts=stub), fake_bin, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "warning: alpha: command false failed, continuing" in proc.stderr
    assert "warning: beta: script stop_dgx_services failed, continuing" in proc.stderr
    assert records == expected_records(plan)


def test_ssh_options(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, KEYED, TWO)
    script = render_sh(plan, scripts={}, ssh_key_path="~/.ssh/id_test",
                       known_hosts_path="/etc/ssh/known hosts")
    launch_lines = [line for line in script.splitlines() if "docker run" in line]
    assert len(launch_lines) == 2
    worker = launch_lines[0]
    assert worker.startswith('ssh -p 2222 -i "$HOME"/.ssh/id_test '
                             "-o UserKnownHostsFile='/etc/ssh/known hosts' "
                             "-o StrictHostKeyChecking=yes -o BatchMode=yes -l ops -- 10.9.0.2 ")
    assert launch_lines[1].startswith("ssh -p 22 ")


def test_local_node_runs_without_ssh(tmp_path: Path, fake_bin: Path) -> None:
    config = """
        [[clusters]]
        name = "here"
        nodes = [{ name = "me", ssh_ip = "127.0.0.1", rank = 0, local = true }]
    """
    plan = make_plan(tmp_path, config, VLLM_MIN + 'args = ["a b", "$(touch pwned)"]\n')
    script = _render(plan)
    assert "ssh " not in script
    proc, records = run_plan_script(script, fake_bin, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert records == [{"target": "local", "argv": plan.head.launch[1:]}]
    assert not (tmp_path / "pwned").exists()


def test_hf_refs_are_noted(tmp_path: Path) -> None:
    recipe = VLLM_MIN + ('args = ["{{draft}}"]\n[[extra_mounts]]\nrepo = "o/r"\n'
                         'container = "draft"\n')
    script = _render(make_plan(tmp_path, DUO, recipe))
    assert "# HF references {{draft}} are resolved per node by `sparktui serve`;" in script
