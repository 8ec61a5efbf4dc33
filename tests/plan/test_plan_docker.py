"""``docker run`` argv: flags, labels, mounts, env injection, ports, and mods wrapping."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from plan_support import DUO, VLLM_MIN, make_plan

from sparktui.plan.container import container_name
from sparktui.plan.model import LaunchPlan

TWO = VLLM_MIN + "required_nodes = 2\ntensor_parallel_size = 2\n"


def pairs(launch: list[str], flag: str) -> list[str]:
    """Every value given to ``flag`` (as ``flag VALUE``), in order."""
    return [launch[i + 1] for i, a in enumerate(launch[:-1]) if a == flag]


def image_at(plan: LaunchPlan, node: int = 0) -> int:
    return plan.nodes[node].launch.index("img:1")


def test_multi_node_head_argv(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO + 'shm_size = "64gb"\n')
    head = plan.head.launch
    assert head[:5] == ["docker", "run", "-d", "--name", "sparktui-demo"]
    assert pairs(head, "--label") == [
        "sparktui.recipe=demo", "sparktui.cluster=duo", "sparktui.node=alpha",
        "sparktui.rank=0", "sparktui.role=head", "sparktui.port=30000",
        "sparktui.after_stop=[]", "sparktui.mem_share=0.9",  # vLLM's default share
        # every other label sparktui reads is set empty, so the image's LABELs cannot
        # speak for sparktui (docker merges them into the container's)
        "sparktui.service=", "sparktui.service_type=", "sparktui.service_index=",
        "sparktui.start=", "sparktui.critical=", "sparktui.terminal=", "sparktui.pool=",
        "sparktui.readiness=", "sparktui.metrics="]
    assert pairs(head, "--gpus") == ["all"]
    assert pairs(head, "--network") == ["host"]
    assert pairs(head, "--ulimit") == ["memlock=-1", "stack=67108864"]
    assert pairs(head, "--device") == ["/dev/infiniband"]
    # Only flags that take effect: a /dev/shm of its own (--ipc host would ignore the
    # size), and no -p on the host's network (docker ignores it and warns).
    assert pairs(head, "--shm-size") == ["64gb"]
    assert pairs(head, "--ipc") == []
    assert pairs(head, "-p") == []
    assert pairs(head, "-v") == ["/home/ops/.cache/huggingface:/root/.cache/huggingface",
                                 *compile_caches("/home/ops")]
    # every docker option comes before the image; the engine command after it
    options_end = image_at(plan)
    assert all(a not in head[options_end:] for a in ("--gpus", "-v", "-e", "--label"))
    assert head[options_end + 1:options_end + 3] == ["org/model", "--tensor-parallel-size"]


def test_worker_has_no_published_port(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO)
    worker = plan.nodes[1].launch
    assert "sparktui.role=worker" in worker and "sparktui.node=beta" in worker
    assert pairs(worker, "-p") == []
    assert pairs(worker, "--network") == ["host"]


def test_single_node_uses_bridge_network_and_publishes_port(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN + "port = 8123\n")
    (node,) = plan.nodes
    assert pairs(node.launch, "--network") == []
    assert pairs(node.launch, "--ulimit") == []
    assert pairs(node.launch, "-p") == ["8123:8123"]
    assert pairs(node.launch, "--ipc") == ["host"]


@pytest.mark.parametrize(("line", "shm", "ipc"), [("", [], ["host"]),
                                                 ('shm_size = ""\n', [], ["host"]),
                                                 ('shm_size = "16gb"\n', ["16gb"], [])])
@pytest.mark.parametrize("nodes", [1, 2])
def test_shm_size_replaces_the_hosts_ipc(tmp_path: Path, line: str, shm: list[str],
                                         ipc: list[str], nodes: int) -> None:
    """docker ignores --shm-size under --ipc host: a size set is a /dev/shm of its own."""
    recipe = VLLM_MIN + f"required_nodes = {nodes}\ntensor_parallel_size = {nodes}\n" + line
    for node in make_plan(tmp_path, DUO, recipe).nodes:
        assert pairs(node.launch, "--shm-size") == shm
        assert pairs(node.launch, "--ipc") == ipc


def test_hf_cache_alias_wins(tmp_path: Path) -> None:
    config = DUO + '\n[mount_aliases]\nhf_cache = "/mnt/nas/hf"\n'
    plan = make_plan(tmp_path, config, VLLM_MIN)
    assert pairs(plan.head.launch, "-v") == ["/mnt/nas/hf:/root/.cache/huggingface",
                                             *compile_caches("/home/ops")]
    assert plan.head.mounts[0].as_dict() == {"host": "/mnt/nas/hf",
                                             "container": "/root/.cache/huggingface",
                                             "read_only": False}


MOUNTS = """
[[extra_mounts]]
alias = "jit_cache"
host = "~/.cache/jit"
container = "/root/.cache/jit"
env = "JIT_DIR"

[[extra_mounts]]
alias = "not_configured"
host = "~/scratch"
container = "/scratch"

[[extra_mounts]]
host = "/opt/patches"
container = "/patches"
read_only = true

[[extra_mounts]]
host = "/srv/data"
container = "/data"
read_only = false
"""


def test_extra_mounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/operator/laptop/home")  # must not leak into node paths
    config = DUO.replace('ssh_user = "ops"', 'ssh_user = "svc-llm"') + (
        '\n[mount_aliases]\njit_cache = "/mnt/nas/jit"\n')
    plan = make_plan(tmp_path, config, VLLM_MIN + MOUNTS)
    assert pairs(plan.head.launch, "-v") == [
        "/home/svc-llm/.cache/huggingface:/root/.cache/huggingface",
        *compile_caches("/home/svc-llm"),
        "/mnt/nas/jit:/root/.cache/jit",          # alias from [mount_aliases] wins over host
        "/home/svc-llm/scratch:/scratch",          # alias not configured: host, ~ = ssh_user's
        "/opt/patches:/patches:ro",
        "/srv/data:/data",
    ]
    assert "JIT_DIR=/root/.cache/jit" in pairs(plan.head.launch, "-e")
    assert [m.volume for m in plan.head.mounts] == pairs(plan.head.launch, "-v")
    assert all("/operator/laptop/home" not in a for a in plan.head.launch)


def test_tilde_for_root_user(tmp_path: Path) -> None:
    config = DUO.replace('ssh_user = "ops"', 'ssh_user = "root"')
    plan = make_plan(tmp_path, config, VLLM_MIN + '[[extra_mounts]]\nhost = "~/w"\n'
                     'container = "/w"\n')
    assert pairs(plan.head.launch, "-v") == ["/root/.cache/huggingface:/root/.cache/huggingface",
                                             *compile_caches("/root"), "/root/w:/w"]


def test_hf_repo_reference_is_not_a_bind_mount(tmp_path: Path) -> None:
    recipe = VLLM_MIN + ('args = ["--draft", "{{draft}}"]\n[[extra_mounts]]\n'
                         'repo = "org/Draft"\ncontainer = "draft"\n')
    plan = make_plan(tmp_path, DUO, recipe)
    assert pairs(plan.head.launch, "-v") == [
        "/home/ops/.cache/huggingface:/root/.cache/huggingface", *compile_caches("/home/ops")]


def compile_caches(home: str) -> list[str]:
    """The compile caches every engine container gets from its node's own disk."""
    return [f"{home}/.cache/vllm:/root/.cache/vllm", f"{home}/.triton:/root/.triton",
            f"{home}/.cache/flashinfer:/root/.cache/flashinfer"]


def test_a_recipe_that_mounts_a_compile_cache_itself_keeps_its_own(tmp_path: Path) -> None:
    recipe = VLLM_MIN + ('[[extra_mounts]]\nhost = "/scratch/triton"\n'
                         'container = "/root/.triton"\n')
    plan = make_plan(tmp_path, DUO, recipe)
    volumes = pairs(plan.head.launch, "-v")
    assert "/scratch/triton:/root/.triton" in volumes
    assert [v for v in volumes if v.endswith(":/root/.triton")] == ["/scratch/triton:/root/.triton"]
    # the other two still come from the node's own home, one each
    assert "/home/ops/.cache/vllm:/root/.cache/vllm" in volumes
    assert "/home/ops/.cache/flashinfer:/root/.cache/flashinfer" in volumes


@pytest.mark.parametrize(("recipe", "name"), [("demo", "sparktui-demo"),
                                              ("glm 4.5/air", "sparktui-glm-4.5-air"),
                                              ("a_b.c-d", "sparktui-a_b.c-d")])
def test_container_name(recipe: str, name: str) -> None:
    assert container_name(recipe) == name


# -- mods: --entrypoint sh IMAGE -c 'mods && exec ENTRYPOINT ARGS' -------------------------


def mods_plan(tmp_path: Path, mods: str, entrypoint: str = '["echo", "ENGINE-RAN"]') -> list[str]:
    recipe = VLLM_MIN + f'entrypoint = {entrypoint}\nargs = ["--x", "it\'s"]\n' + mods
    return make_plan(tmp_path, DUO, recipe).head.launch


def script_of(launch: list[str]) -> str:
    at = launch.index("--entrypoint")
    assert launch[at:at + 3] == ["--entrypoint", "sh", "img:1"]
    assert launch[at + 3] == "-c"
    assert len(launch) == at + 5
    return launch[at + 4]


def run_script(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=10,
                          check=False)


def test_mods_wrap_the_entrypoint(tmp_path: Path) -> None:
    launch = mods_plan(tmp_path, '[mods]\ncommands = ["true"]\n')
    script = script_of(launch)
    assert script.splitlines()[-1].startswith("exec echo ENGINE-RAN org/model ")
    proc = run_script(script)
    assert proc.returncode == 0, proc.stderr
    assert "ENGINE-RAN org/model --tensor-parallel-size 1" in proc.stdout
    assert proc.stdout.rstrip().endswith("--x it's")


def test_failing_mod_aborts_without_exec(tmp_path: Path) -> None:
    launch = mods_plan(tmp_path, '[mods]\ncommands = ["true", "false", "true"]\n')
    proc = run_script(script_of(launch))
    assert proc.returncode != 0
    assert "ENGINE-RAN" not in proc.stdout
    assert "mod 2/3 failed: false" in proc.stderr
    assert "mod 3/3" not in proc.stdout


def test_failing_warn_mod_continues(tmp_path: Path) -> None:
    launch = mods_plan(tmp_path, '[mods]\ncommands = [{ command = "false", on_failure = "warn" },'
                       ' "true"]\n')
    proc = run_script(script_of(launch))
    assert proc.returncode == 0, proc.stderr
    assert "ENGINE-RAN" in proc.stdout
    assert "mod 1/2 failed: false (continuing)" in proc.stderr


def test_mod_with_trailing_comment_and_compound_command(tmp_path: Path) -> None:
    mods = '[mods]\ncommands = ["cd / && false # not fine", "echo never"]\n'
    proc = run_script(script_of(mods_plan(tmp_path, mods)))
    assert proc.returncode != 0
    assert "ENGINE-RAN" not in proc.stdout and "never\n" not in proc.stdout


def test_engine_replaces_the_mod_shell(tmp_path: Path) -> None:
    mods = '[mods]\ncommands = ["echo MODPID=$$"]\n'
    launch = mods_plan(tmp_path, mods, entrypoint='["sh", "-c", "echo ENGINEPID=$$"]')
    proc = run_script(script_of(launch))
    assert proc.returncode == 0, proc.stderr
    fields = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "PID=" in line)
    assert fields["MODPID"] == fields["ENGINEPID"]  # exec: same process, no extra shell


def test_no_mods_no_wrapping(tmp_path: Path) -> None:
    launch = make_plan(tmp_path, DUO, VLLM_MIN + 'entrypoint = ["vllm", "serve"]\n').head.launch
    assert "--entrypoint" not in launch
    at = launch.index("img:1")
    assert launch[at + 1:at + 4] == ["vllm", "serve", "org/model"]


def test_mods_run_on_every_node(tmp_path: Path) -> None:
    recipe = TWO + 'entrypoint = ["vllm", "serve"]\n[mods]\ncommands = ["pip install x"]\n'
    plan = make_plan(tmp_path, DUO, recipe)
    for node in plan.nodes:
        script = script_of(node.launch)
        assert "pip install x" in script
        assert script.splitlines()[-1].startswith("exec vllm serve org/model")
    assert "--headless" in script_of(plan.nodes[1].launch)


def test_relative_mount_host_is_an_error_naming_the_line(tmp_path):
    from sparktui.config.loader import load_config as _load_config
    from sparktui.config.loader import load_recipe as _load_recipe
    from sparktui.errors import SparkError
    from sparktui.plan.build import build_plan

    recipe = tmp_path / "rel" / "recipe.toml"
    recipe.parent.mkdir()
    text = ('engine = "vllm"\ndocker_image = "i"\nmodel = "m"\n\n[[extra_mounts]]\n'
            'host = "data/cache"\ncontainer = "/c"\n')
    recipe.write_text(text)
    with pytest.raises(SparkError) as err:
        build_plan(_load_config(None), _load_recipe(recipe))
    message = err.value.render()
    assert f"{recipe}:6: extra_mounts[0].host" in message and "data/cache" in message
