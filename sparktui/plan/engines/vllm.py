"""vLLM: ``vllm serve MODEL`` with multi-node flags (mp) or a Ray cluster (ray)."""

from __future__ import annotations

from sparktui.config.recipe import Recipe
from sparktui.plan.engines.base import MASTER_PORT, Engine, EngineContext


def dynamo_worker(recipe: Recipe) -> bool:
    """Behind a Dynamo frontend the members run ``python3 -m dynamo.vllm``: vLLM's engine
    arguments (``AsyncEngineArgs``: ``--model``, the parallel sizes, ``--nnodes``...) and
    Dynamo's own, no HTTP server (no ``--host``/``--port``, nor ``vllm serve``'s
    ``--headless``): the API is the frontend's (ai-dynamo/dynamo,
    components/backends/vllm/src/dynamo/vllm/args.py)."""
    return recipe.frontend_type == "dynamo"


class _Vllm(Engine):
    def model_args(self, recipe: Recipe) -> list[str]:
        return ["--model", recipe.model] if dynamo_worker(recipe) else [recipe.model]

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
            if not ctx.is_head and not dynamo_worker(recipe):
                flags.append("--headless")
        if ctx.is_head and not dynamo_worker(recipe):
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
