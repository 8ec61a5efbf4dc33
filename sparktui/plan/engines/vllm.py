"""vLLM: ``vllm serve MODEL`` with multi-node flags (mp) or a Ray cluster (ray)."""

from __future__ import annotations

from sparktui.config.recipe import Recipe
from sparktui.plan.engines.base import MASTER_PORT, Engine, EngineContext


class _Vllm(Engine):
    def model_args(self, recipe: Recipe) -> list[str]:
        return [recipe.model]

    def flags(self, ctx: EngineContext) -> list[str]:
        recipe = ctx.recipe
        flags = [
            "--tensor-parallel-size", str(recipe.tensor_parallel_size),
            "--pipeline-parallel-size", str(ctx.pipeline_parallel_size),
        ]
        if ctx.uses_ray:
            flags += ["--distributed-executor-backend", "ray"]
        elif ctx.nnodes > 1:
            flags += [
                "--nnodes", str(ctx.nnodes),
                "--node-rank", str(ctx.rank),
                "--master-addr", ctx.master_ip,
                "--master-port", str(MASTER_PORT),
            ]
            if not ctx.is_head:
                flags.append("--headless")
        if ctx.is_head:
            flags += ["--host", "0.0.0.0", "--port", str(recipe.port)]
        return flags


VLLM = _Vllm(
    name="vllm",
    ip_env="VLLM_HOST_IP",
    default_entrypoint=("vllm", "serve"),
    owned_flags=frozenset({
        "--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "-pp",
        "--nnodes", "--node-rank", "--master-addr", "--master-port",
        "--host", "--port", "--headless", "--distributed-executor-backend",
        "--data-parallel-address",
    }),
)
