"""The engine container's environment: every variable, its value, and the merge order."""

from __future__ import annotations

from pathlib import Path

from plan_support import DUO, VLLM_MIN, make_plan

from sparktui.plan.model import NodePlan

FABRIC = {
    "NCCL_IB_DISABLE": "0",
    "NCCL_IB_HCA": "mlx5_0,mlx5_1",
    "NCCL_IB_GID_INDEX": "3",
    "NCCL_SOCKET_IFNAME": "enp1s0f1np1",
    "GLOO_SOCKET_IFNAME": "enp1s0f1np1",
    "TP_SOCKET_IFNAME": "enp1s0f1np1",
    "MN_IF_NAME": "enp1s0f1np1",
    "UCX_NET_DEVICES": "enp1s0f1np1",
    "OMPI_MCA_btl_tcp_if_include": "enp1s0f1np1",
}
DEFAULTS = {"OMP_NUM_THREADS": "4", "NCCL_IGNORE_CPU_AFFINITY": "1", "NCCL_NET": "IB",
            "NCCL_DEBUG": "WARN"}
HEAD_ONLY = {"VLLM_LOGGING_COLOR": "1", "TERM": "xterm-256color"}
TWO = VLLM_MIN + "required_nodes = 2\ntensor_parallel_size = 2\n"


def env_items(node: NodePlan) -> list[tuple[str, str]]:
    return list(node.env.items())


def e_flags(launch: list[str]) -> list[str]:
    return [launch[i + 1] for i, a in enumerate(launch) if a == "-e"]


def test_vllm_mp_head_and_worker_exact_order(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO)
    head, worker = plan.nodes
    assert env_items(head) == [*FABRIC.items(), *DEFAULTS.items(),
                               ("VLLM_HOST_IP", "192.168.7.1"), *HEAD_ONLY.items()]
    assert env_items(worker) == [*FABRIC.items(), *DEFAULTS.items(),
                                 ("VLLM_HOST_IP", "192.168.7.2")]
    # the container gets exactly this env, in this order
    assert e_flags(head.launch) == [f"{k}={v}" for k, v in head.env.items()]
    assert e_flags(worker.launch) == [f"{k}={v}" for k, v in worker.env.items()]


def test_sglang_uses_worker_ip(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO.replace('"vllm"', '"sglang"'))
    head, worker = plan.nodes
    assert head.env["SGLANG_WORKER_IP"] == "192.168.7.1"
    assert worker.env["SGLANG_WORKER_IP"] == "192.168.7.2"
    assert "VLLM_HOST_IP" not in head.env and "VLLM_HOST_IP" not in worker.env


def test_ray_variables(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO + 'distributed_backend = "ray"\n')
    head, worker = plan.nodes
    for node, ip in ((head, "192.168.7.1"), (worker, "192.168.7.2")):
        assert node.env["RAY_ADDRESS"] == "192.168.7.1:6379"
        assert node.env["RAY_PORT"] == "6379"
        assert node.env["RAY_NODE_IP_ADDRESS"] == ip
        assert node.env["RAY_OVERRIDE_NODE_IP_ADDRESS"] == ip
    keys = list(head.env)
    assert keys.index("TERM") < keys.index("RAY_ADDRESS")


def test_no_ray_variables_for_mp(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, TWO)
    assert not any(k.startswith("RAY_") for n in plan.nodes for k in n.env)


def test_recipe_env_wins_and_comes_last(tmp_path: Path) -> None:
    recipe = TWO + '[env]\nNCCL_DEBUG = "INFO"\nVLLM_HOST_IP = "10.1.1.1"\nEXTRA = "x"\n'
    plan = make_plan(tmp_path, DUO, recipe)
    for node in plan.nodes:
        assert list(node.env.items())[-3:] == [("NCCL_DEBUG", "INFO"),
                                               ("VLLM_HOST_IP", "10.1.1.1"), ("EXTRA", "x")]
        assert list(node.env).count("NCCL_DEBUG") == 1
        flags = e_flags(node.launch)
        assert flags[-3:] == ["NCCL_DEBUG=INFO", "VLLM_HOST_IP=10.1.1.1", "EXTRA=x"]
        assert "NCCL_DEBUG=WARN" not in flags


def test_mount_env_injection_before_recipe_env(tmp_path: Path) -> None:
    recipe = TWO + ('[env]\nLAST = "1"\n[[extra_mounts]]\nhost = "/data/jit"\n'
                    'container = "/root/.cache/jit"\nenv = "JIT_DIR"\n')
    plan = make_plan(tmp_path, DUO, recipe)
    keys = list(plan.head.env)
    assert plan.head.env["JIT_DIR"] == "/root/.cache/jit"
    assert keys[-2:] == ["JIT_DIR", "LAST"]


def test_ib_disabled_fabric(tmp_path: Path) -> None:
    config = DUO + "ib_disable = 1\n"
    plan = make_plan(tmp_path, config, TWO)
    env = plan.head.env
    assert env["NCCL_IB_DISABLE"] == "1"
    assert env["NCCL_NET"] == "Socket"
    assert "--device" not in plan.head.launch


def test_no_nccl_entry_means_defaults_only(tmp_path: Path) -> None:
    config = DUO.split('[nccl."duo"]')[0]
    plan = make_plan(tmp_path, config, TWO)
    assert list(plan.head.env.items()) == [*DEFAULTS.items(), ("VLLM_HOST_IP", "192.168.7.1"),
                                           *HEAD_ONLY.items()]
    assert "--device" not in plan.head.launch


def test_partial_nccl_entry(tmp_path: Path) -> None:
    config = DUO.split('[nccl."duo"]')[0] + '[nccl."duo"]\nib_hca = "mlx5_0"\n'
    env = make_plan(tmp_path, config, TWO).head.env
    assert env["NCCL_IB_HCA"] == "mlx5_0" and env["NCCL_IB_DISABLE"] == "0"
    for name in ("NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME",
                 "TP_SOCKET_IFNAME", "MN_IF_NAME", "UCX_NET_DEVICES",
                 "OMPI_MCA_btl_tcp_if_include"):
        assert name not in env


def test_node_ip_falls_back_to_ssh_ip(tmp_path: Path) -> None:
    config = """
        [[clusters]]
        name = "plain"
        nodes = [{ name = "a", ssh_ip = "10.0.0.1", rank = 0 },
                 { name = "b", ssh_ip = "10.0.0.2", rank = 1 }]
    """
    plan = make_plan(tmp_path, config, TWO)
    assert [n.env["VLLM_HOST_IP"] for n in plan.nodes] == ["10.0.0.1", "10.0.0.2"]
    assert [n.ib_ip for n in plan.nodes] == ["10.0.0.1", "10.0.0.2"]
    launch = plan.nodes[1].launch
    assert launch[launch.index("--master-addr") + 1] == "10.0.0.1"


def test_master_ib_ip_drives_master_addr(tmp_path: Path) -> None:
    config = DUO.replace('master_ib_ip = "192.168.7.1"', 'master_ib_ip = "192.168.7.99"')
    plan = make_plan(tmp_path, config, TWO)
    for node in plan.nodes:
        assert node.launch[node.launch.index("--master-addr") + 1] == "192.168.7.99"
    ray = make_plan(tmp_path, config, TWO + 'distributed_backend = "ray"\n')
    assert ray.nodes[1].env["RAY_ADDRESS"] == "192.168.7.99:6379"


def test_single_node_head_vars(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN)
    (node,) = plan.nodes
    assert node.role == "head"
    assert node.env["VLLM_LOGGING_COLOR"] == "1" and node.env["TERM"] == "xterm-256color"


def test_nccl_net_only_where_nccl_has_a_network_to_choose(tmp_path: Path) -> None:
    (single,) = make_plan(tmp_path, DUO, VLLM_MIN).nodes
    assert "NCCL_NET" not in single.env
    assert not any(flag.startswith("NCCL_NET=") for flag in e_flags(single.launch))
    (off,) = make_plan(tmp_path, DUO + "ib_disable = 1\n", VLLM_MIN).nodes
    assert "NCCL_NET" not in off.env
    assert [n.env["NCCL_NET"] for n in make_plan(tmp_path, DUO, TWO).nodes] == ["IB", "IB"]


def test_sglang_gets_no_vllm_variable(tmp_path: Path) -> None:
    for recipe in (VLLM_MIN, TWO):
        head = make_plan(tmp_path, DUO, recipe.replace('"vllm"', '"sglang"')).head
        assert "VLLM_LOGGING_COLOR" not in head.env and head.env["TERM"] == "xterm-256color"
