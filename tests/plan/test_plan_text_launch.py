"""The text plan as an operator reads it: a ``sh -c`` script shown as a script, not quoted
inside the docker argv (the Dynamo plan's address: test_services_plan.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plan_support import DUO, VLLM_MIN, make_plan

from sparktui.plan.render import render

TWO_RAY = VLLM_MIN + 'required_nodes = 2\ntensor_parallel_size = 2\ndistributed_backend = "ray"\n'
PRINT_ARGV = f"{sys.executable} -c 'import sys, json; print(json.dumps(sys.argv[1:]))'"


def _launch_block(text: str, node: str) -> str:
    section = text.split(f"== {node} ")[1].split("\n== ")[0]
    return section.split("  launch:\n")[1].split("  after stop:")[0]


def _argv_of(block: str) -> list[str]:
    """What a shell makes of the shown launch, docker replaced by an argv printer."""
    shell = block.replace("docker run", PRINT_ARGV + " run", 1)
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=30,
                          check=True)
    return ["docker", *json.loads(done.stdout)]


def test_a_ray_head_shows_its_script_unquoted_and_a_copy_runs_the_same_argv(tmp_path: Path):
    plan = make_plan(tmp_path, DUO, TWO_RAY)
    text = render(plan, "text")
    block = _launch_block(text, plan.head.name)
    assert "'\"'\"'" not in block  # no quote escaped inside a quote
    assert 'ray.init(address="auto", logging_level="ERROR")' in block.splitlines()
    assert block.splitlines()[-1].strip() == '-c "$SCRIPT"'
    assert _argv_of(block) == plan.head.launch


def test_the_script_end_word_is_never_a_line_of_the_script(tmp_path: Path):
    mods = '[mods]\ncommands = ["cat <<SPARKTUI_SCRIPT\\nhello\\nSPARKTUI_SCRIPT"]\n'
    plan = make_plan(tmp_path, DUO, VLLM_MIN + 'entrypoint = ["vllm", "serve"]\n' + mods)
    block = _launch_block(render(plan, "text"), plan.head.name)
    assert "<<'SPARKTUI_SCRIPT_'" in block
    assert _argv_of(block) == plan.head.launch


def test_a_one_line_launch_is_unchanged(tmp_path: Path):
    plan = make_plan(tmp_path, DUO, VLLM_MIN)
    block = _launch_block(render(plan, "text"), plan.head.name)
    assert "SCRIPT" not in block and _argv_of(block) == plan.head.launch
