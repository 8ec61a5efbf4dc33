"""Engine flags (vLLM mp/ray, SGLang), hooks, start order, HF references, tmux runtime."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, make_plan

from sparktui.plan import hf as hfpaths
from sparktui.plan.model import HfRef

TWO = VLLM_MIN + ('required_nodes = 2\ntensor_parallel_size = 2\n'
                  'args = ["--max-model-len", "4096"]\n')
QUAD = """
[[clusters]]
name = "quad"
nodes = [
  { name = "n0", ssh_ip = "10.0.0.1", ib_ip = "192.168.0.1", rank = 0 },
  { name = "n3", ssh_ip = "10.0.0.4", ib_ip = "192.168.0.4", rank = 3 },
  { name = "n1", ssh_ip = "10.0.0.2", ib_ip = "192.168.0.2", rank = 1 },
  { name = "n2", ssh_ip = "10.0.0.3", ib_ip = "192.168.0.3", rank = 2 },
]
"""


def after_image(launch: list[str]) -> list[str]:
    return launch[launch.index("img:1") + 1:]


def test_vllm_mp_flags(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO + 'entrypoint = ["vllm", "serve"]\n')
    head, worker = plan.nodes
    common = ["vllm", "serve", "org/model", "--tensor-parallel-size", "2",
              "--pipeline-parallel-size", "1", "--nnodes", "2"]
    assert after_image(head.launch) == [
        *common, "--node-rank", "0", "--master-addr", "192.168.7.1", "--master-port", "29501",
        "--host", "0.0.0.0", "--port", "30000", "--max-model-len", "4096"]
    assert after_image(worker.launch) == [
        *common, "--node-rank", "1", "--master-addr", "192.168.7.1", "--master-port", "29501",
        "--headless", "--max-model-len", "4096"]


def test_vllm_single_node_flags(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN + "port = 8000\n")
    assert after_image(plan.head.launch) == [
        "org/model", "--tensor-parallel-size", "1", "--pipeline-parallel-size", "1",
        "--host", "0.0.0.0", "--port", "8000"]


def test_vllm_ray(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO + 'distributed_backend = "ray"\n'
                     'entrypoint = ["vllm", "serve"]\n')
    head, worker = plan.nodes
    # workers join the head's Ray cluster and block; Ray is their entrypoint
    at = worker.launch.index("--entrypoint")
    assert worker.launch[at:] == ["--entrypoint", "ray", "img:1", "start", "--block",
                                  "--address=192.168.7.1:6379",
                                  "--node-ip-address=192.168.7.2"]
    # the head starts Ray, waits for every node, then execs vLLM with the ray executor
    at = head.launch.index("--entrypoint")
    assert head.launch[at:at + 4] == ["--entrypoint", "sh", "img:1", "-c"]
    lines = head.launch[at + 4].splitlines()
    assert lines[0] == ("ray start --head --port=6379 --node-ip-address=192.168.7.1")
    assert shlex.split(lines[-1]) == [
        "exec", "vllm", "serve", "org/model", "--tensor-parallel-size", "2",
        "--pipeline-parallel-size", "1", "--distributed-executor-backend", "ray",
        "--host", "0.0.0.0", "--port", "30000", "--max-model-len", "4096"]
    assert "python3 -c" in head.launch[at + 4] and lines[-2].endswith(" 2")
    assert "--nnodes" not in head.launch[at + 4]
    assert plan.start_order == ["alpha", "beta"]  # Ray: head first


def test_sglang_flags(tmp_path: Path) -> None:
    recipe = TWO.replace('"vllm"', '"sglang"') + (
        'entrypoint = ["python3", "-m", "sglang.launch_server"]\n')
    plan = make_plan(tmp_path, DUO, recipe)
    head, worker = plan.nodes
    for node in plan.nodes:
        assert after_image(node.launch) == [
            "python3", "-m", "sglang.launch_server", "--model-path", "org/model",
            "--tp-size", "2", "--nnodes", "2", "--node-rank", str(node.rank),
            "--dist-init-addr", "192.168.7.1:29501", "--host", "0.0.0.0", "--port", "30000",
            "--enable-metrics", "--max-model-len", "4096"]
    assert "--headless" not in worker.launch
    assert "--pipeline-parallel-size" not in head.launch


def test_sglang_single_node(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN.replace('"vllm"', '"sglang"'))
    assert after_image(plan.head.launch) == ["--model-path", "org/model", "--tp-size", "1",
                                             "--host", "0.0.0.0", "--port", "30000",
                                             "--enable-metrics"]


def test_sglang_metrics_can_be_turned_off(tmp_path: Path) -> None:
    recipe = VLLM_MIN.replace('"vllm"', '"sglang"') + "engine_metrics = false\n"
    assert "--enable-metrics" not in make_plan(tmp_path, DUO, recipe).head.launch


def test_hooks_cluster_first_then_recipe(tmp_path: Path) -> None:
    config = DUO + ('\n[before_serve."duo"]\ncommands = ["sudo nvidia-smi -pm 1",'
                    ' { script = "stop_dgx_services", on_failure = "warn" }]\n')
    recipe = TWO + ('before_serve = ["echo recipe", { command = "x", on_failure = "warn" }]\n'
                    'after_stop = [{ script = "restore_dgx_services" }, "echo bye"]\n')
    plan = make_plan(tmp_path, config, recipe)
    for node in plan.nodes:
        assert [h.as_dict() for h in node.before_serve] == [
            {"kind": "command", "run": "sudo nvidia-smi -pm 1", "on_failure": "abort",
             "origin": "cluster"},
            {"kind": "script", "run": "stop_dgx_services", "on_failure": "warn",
             "origin": "cluster"},
            {"kind": "command", "run": "echo recipe", "on_failure": "abort", "origin": "recipe"},
            {"kind": "command", "run": "x", "on_failure": "warn", "origin": "recipe"},
        ]
        assert [(h.kind, h.run, h.on_failure) for h in node.after_stop] == [
            ("script", "restore_dgx_services", "abort"), ("command", "echo bye", "abort")]


def test_other_clusters_hooks_do_not_apply(tmp_path: Path) -> None:
    config = DUO + """
[[clusters]]
name = "solo"
nodes = [{ name = "s", ssh_ip = "10.9.9.9", rank = 0 }]
[before_serve."solo"]
commands = ["echo solo only"]
"""
    plan = make_plan(tmp_path, config, VLLM_MIN, cluster="duo")
    assert plan.head.before_serve == []


def test_start_order_mp_workers_first(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, QUAD, VLLM_MIN + "required_nodes = 4\n")
    assert [n.name for n in plan.nodes] == ["n0", "n1", "n2", "n3"]  # by rank
    assert [n.role for n in plan.nodes] == ["head", "worker", "worker", "worker"]
    assert plan.start_order == ["n1", "n2", "n3", "n0"]
    assert plan.head.name == "n0"


def test_only_needed_nodes_lowest_ranks(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, QUAD, VLLM_MIN + "required_nodes = 3\n")
    assert [n.name for n in plan.nodes] == ["n0", "n1", "n2"]
    assert plan.start_order == ["n1", "n2", "n0"]


def test_plan_summary_fields(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO)
    assert (plan.recipe, plan.cluster, plan.engine, plan.runtime, plan.port) == (
        "demo", "duo", "vllm", "docker", 30000)
    assert (plan.model, plan.image, plan.ssh_user, plan.services) == ("org/model", "img:1",
                                                                      "ops", [])
    beta = plan.node("beta")
    assert (beta.ssh_ip, beta.ssh_port, beta.ib_ip, beta.rank, beta.local) == (
        "10.9.0.2", 2222, "192.168.7.2", 1, False)
    assert beta.container == "sparktui-demo"


# -- HF repo references --------------------------------------------------------------------

HF = VLLM_MIN + """required_nodes = 2
args = ["--speculative-config", '{"model": "{{draft}}"}', "--x"]
[[extra_mounts]]
repo = "org/Draft-MTP"
subfolder = "mtp"
container = "draft"
[env]
DRAFT_DIR = "{{draft}}"
"""


def test_placeholders_stay_in_the_plan(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, HF)
    assert plan.hf_refs == [HfRef("draft", "org/Draft-MTP", "mtp")]
    assert plan.as_dict()["hf_refs"] == [{"placeholder": "draft", "repo": "org/Draft-MTP",
                                          "subfolder": "mtp"}]
    for node in plan.nodes:
        assert '{"model": "{{draft}}"}' in node.launch
        assert node.env["DRAFT_DIR"] == "{{draft}}"


def test_hf_paths_substitute_per_node(tmp_path: Path) -> None:
    paths = {"alpha": {"draft": "/root/.cache/huggingface/hub/models--org--Draft-MTP/"
                                "snapshots/aaa/mtp"},
             "beta": {"draft": "/root/.cache/huggingface/hub/models--org--Draft-MTP/"
                               "snapshots/bbb/mtp"}}
    plan = make_plan(tmp_path, DUO, HF)
    for node in (hfpaths.substitute(n, paths[n.name]) for n in plan.nodes):
        want = paths[node.name]["draft"]
        assert f'{{"model": "{want}"}}' in node.launch
        assert node.env["DRAFT_DIR"] == want
        assert f"DRAFT_DIR={want}" in node.launch
        assert not any("{{" in a for a in node.launch)


def test_hf_paths_for_one_node_leave_the_other(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, HF)
    resolved = {"beta": {"draft": "/x"}}
    nodes = {n.name: hfpaths.substitute(n, resolved.get(n.name, {})) for n in plan.nodes}
    assert nodes["alpha"].env["DRAFT_DIR"] == "{{draft}}"
    assert nodes["beta"].env["DRAFT_DIR"] == "/x"


def test_only_plain_paths_are_substituted() -> None:
    assert hfpaths.safe_path("/root/.cache/huggingface/hub/models--a--b/snapshots/0f/mtp")
    assert not hfpaths.safe_path("/x'; rm -rf / #")
    assert not hfpaths.safe_path("/x y")


def test_hf_path_helpers() -> None:
    host = "/home/ops/.cache/huggingface/"
    ref = HfRef("draft", "org/Draft-MTP", "mtp/")
    assert hfpaths.repo_dir(host, "org/Draft-MTP") == (
        "/home/ops/.cache/huggingface/hub/models--org--Draft-MTP")
    assert hfpaths.refs_main_path(host, "org/Draft-MTP") == (
        "/home/ops/.cache/huggingface/hub/models--org--Draft-MTP/refs/main")
    snap = hfpaths.snapshot_path(host, ref, "0123abc\n")
    assert snap == ("/home/ops/.cache/huggingface/hub/models--org--Draft-MTP/snapshots/"
                    "0123abc/mtp")
    whole = hfpaths.snapshot_path(host, HfRef("w", "org/W"), "c0ffee")
    assert whole.endswith("/hub/models--org--W/snapshots/c0ffee")
    assert hfpaths.to_container(host, snap) == (
        "/root/.cache/huggingface/hub/models--org--Draft-MTP/snapshots/0123abc/mtp")
    assert hfpaths.to_container(host, "/home/ops/.cache/huggingface") == (
        "/root/.cache/huggingface")
    # a sibling folder that merely shares the prefix is not rewritten
    assert hfpaths.to_container(host, "/home/ops/.cache/huggingface2/x") == (
        "/home/ops/.cache/huggingface2/x")
    assert hfpaths.to_container("/mnt/nas/hf", "/mnt/nas/hf/hub/x") == (
        "/root/.cache/huggingface/hub/x")


def test_hf_substitute_fills_one_node(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, HF)
    path = "/root/.cache/huggingface/hub/models--org--Draft-MTP/snapshots/abc/mtp"
    filled = hfpaths.substitute(plan.node("beta"), {"draft": path})
    assert filled.env["DRAFT_DIR"] == path
    assert f'{{"model": "{path}"}}' in filled.launch and f"DRAFT_DIR={path}" in filled.launch
    assert plan.node("beta").env["DRAFT_DIR"] == "{{draft}}"  # the plan itself is unchanged
    untouched = hfpaths.substitute(plan.node("alpha"), {"other": "/x"})
    assert untouched.env["DRAFT_DIR"] == "{{draft}}"


def test_hf_safe_path() -> None:
    assert hfpaths.safe_path("/root/.cache/huggingface/hub/models--o--r/snapshots/ab12/mtp")
    for bad in ("", "/a b", "/a;rm -rf /", "/a$(x)", "/a'b", "/a\nb", "/a`b`"):
        assert not hfpaths.safe_path(bad), bad


# -- tmux runtime ----------------------------------------------------------------------------


def split_tmux(tail: list[str]) -> tuple[list[str], list[str]]:
    """The session's command, and the tmux command chained after ``;`` (if any)."""
    if ";" not in tail:
        return tail, []
    at = tail.index(";")
    return tail[:at], tail[at + 1:]


def test_tmux_runtime_argv(tmp_path: Path) -> None:
    recipe = VLLM_MIN + 'runtime = "tmux"\nentrypoint = ["/opt/venv/bin/vllm", "serve"]\n'
    plan = make_plan(tmp_path, DUO, recipe + '[env]\nK = "v w"\n')
    node = plan.head
    launch = node.launch
    assert launch[:5] == ["tmux", "new-session", "-d", "-s", "sparktui-demo"]
    sep = launch.index("--")
    env_flags = [launch[i + 1] for i in range(5, sep, 2)]
    assert all(launch[i] == "-e" for i in range(5, sep, 2))
    assert env_flags[:6] == ["SPARKTUI_LABEL_RECIPE=demo", "SPARKTUI_LABEL_CLUSTER=duo",
                             "SPARKTUI_LABEL_NODE=alpha", "SPARKTUI_LABEL_RANK=0",
                             "SPARKTUI_LABEL_ROLE=head", "SPARKTUI_LABEL_PORT=30000"]
    assert env_flags[6] == "SPARKTUI_LABEL_AFTER_STOP=[]"
    assert env_flags[7] == "SPARKTUI_LABEL_MEM_SHARE=0.9"  # vLLM's default share
    assert env_flags[8:] == [f"{k}={v}" for k, v in node.env.items()]
    assert env_flags[-1] == "K=v w"
    command, chained = split_tmux(launch[sep + 1:])
    # the session's shell copies the command's output to a log file (and the pane)
    assert command[:2] == ["sh", "-c"] and "| tee" in command[2]
    assert command[3] == "sparktui-demo" and "$0.log" in command[2]
    assert command[4:] == ["/opt/venv/bin/vllm", "serve", "org/model",
                           "--tensor-parallel-size", "1", "--pipeline-parallel-size", "1",
                           "--host", "0.0.0.0", "--port", "30000"]
    # the pane is kept when the command ends: its last output and exit status
    assert chained == ["set-option", "-w", "-t", "sparktui-demo", "remain-on-exit", "on"]
    assert node.mounts == [] and plan.runtime == "tmux"
    assert "docker" not in launch


def test_tmux_default_entrypoint_and_mods(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN + 'runtime = "tmux"\n')
    launch = plan.head.launch
    assert split_tmux(launch[launch.index("--") + 1:])[0][4:7] == ["vllm", "serve", "org/model"]
    sg = make_plan(tmp_path, DUO, VLLM_MIN.replace('"vllm"', '"sglang"') + 'runtime = "tmux"\n')
    launch = sg.head.launch
    assert launch[launch.index("--") + 5:][:4] == ["python3", "-m", "sglang.launch_server",
                                                   "--model-path"]
    modded = make_plan(tmp_path, DUO, VLLM_MIN + 'runtime = "tmux"\nentrypoint = ["vllm", '
                       '"serve"]\n[mods]\ncommands = ["true"]\n')
    launch = modded.head.launch
    command, _ = split_tmux(launch[launch.index("--") + 5:])
    assert len(command) == 3 and command[:2] == ["sh", "-c"]
    assert command[2].splitlines()[-1].startswith("exec vllm serve")


@pytest.mark.parametrize("arg", ["--master_addr=1.2.3.4", "--master-a", "--tensor_parallel_size",
                                 "--node-r=1", "--headl"])
def test_underscored_and_abbreviated_owned_flags_are_refused(arg):
    from sparktui.plan.engines import engine_for

    assert engine_for("vllm").owned_flag_in(arg) is not None


@pytest.mark.parametrize("arg", ["--max-model-len", "--served-model-name", "-q", "--h", "--"])
def test_other_flags_pass(arg):
    from sparktui.plan.engines import engine_for

    assert engine_for("vllm").owned_flag_in(arg) is None
