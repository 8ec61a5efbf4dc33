"""The engine container's environment, merged in the reference's order.

Cluster fabric, then defaults, then the engine's own address, head-only and Ray
variables, mount env injection, and the recipe's ``[env]`` last so it wins.
"""

from __future__ import annotations

from sparktui.config.models import Nccl
from sparktui.plan.engines.base import RAY_PORT, EngineContext

DEFAULTS = {
    "OMP_NUM_THREADS": "4",
    "NCCL_IGNORE_CPU_AFFINITY": "1",
    "NCCL_NET": "IB",  # multi-node only: one node's NCCL has no network to choose
    "NCCL_DEBUG": "WARN",
}


def fabric_env(nccl: Nccl | None) -> dict[str, str]:
    if nccl is None:
        return {}
    env = {"NCCL_IB_DISABLE": str(nccl.ib_disable)}
    if nccl.ib_hca:
        env["NCCL_IB_HCA"] = nccl.ib_hca
    if nccl.ib_gid_index is not None:
        env["NCCL_IB_GID_INDEX"] = str(nccl.ib_gid_index)
    if nccl.socket_ifname:
        for name in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME",
                     "MN_IF_NAME", "UCX_NET_DEVICES", "OMPI_MCA_btl_tcp_if_include"):
            env[name] = nccl.socket_ifname
    return env


def container_env(ctx: EngineContext, ip_env: str, nccl: Nccl | None,
                  injected: dict[str, str]) -> dict[str, str]:
    env = fabric_env(nccl)
    env.update(DEFAULTS)
    if ctx.nnodes <= 1:
        del env["NCCL_NET"]
    elif nccl is not None and nccl.ib_disable:
        env["NCCL_NET"] = "Socket"  # NCCL_NET=IB with IB disabled fails at init
    env[ip_env] = ctx.node_ip
    if ctx.is_head:
        if ctx.recipe.engine == "vllm":
            env["VLLM_LOGGING_COLOR"] = "1"  # vLLM's own variable; SGLang never reads it
        env["TERM"] = "xterm-256color"
    if ctx.uses_ray:
        env["RAY_ADDRESS"] = f"{ctx.master_ip}:{RAY_PORT}"
        env["RAY_PORT"] = str(RAY_PORT)
        env["RAY_NODE_IP_ADDRESS"] = ctx.node_ip
        env["RAY_OVERRIDE_NODE_IP_ADDRESS"] = ctx.node_ip
    env.update(injected)
    for key, value in ctx.recipe.env.items():
        env.pop(key, None)  # re-inserted so the recipe's values come last
        env[key] = value
    return env
