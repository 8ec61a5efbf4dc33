"""SGLang: ``sglang.launch_server --model-path MODEL`` with --dist-init-addr.

Flags are SGLang 0.5.23's full names: ``--tp`` works there only as an argparse
abbreviation of ``--tp-size`` and breaks when another ``--tp…`` flag appears.
SGLang serves ``/metrics`` only with ``--enable-metrics`` (off by default), which every
plan adds unless the recipe says ``engine_metrics = false``.
"""

from __future__ import annotations

from sparktui.config.recipe import Recipe
from sparktui.plan.engines.base import MASTER_PORT, Engine, EngineContext

METRICS_FLAG = "--enable-metrics"


class _SGLang(Engine):
    def model_args(self, recipe: Recipe) -> list[str]:
        return ["--model-path", recipe.model]

    def flags(self, ctx: EngineContext) -> list[str]:
        flags = ["--tp-size", str(ctx.recipe.tensor_parallel_size)]
        if ctx.nnodes > 1:
            flags += [
                "--nnodes", str(ctx.nnodes),
                "--node-rank", str(ctx.rank),
                "--dist-init-addr", f"{ctx.master_ip}:{MASTER_PORT}",
            ]
        flags += ["--host", "0.0.0.0", "--port", str(ctx.recipe.port)]
        if ctx.recipe.engine_metrics and METRICS_FLAG not in ctx.recipe.args:
            flags.append(METRICS_FLAG)
        return flags


SGLANG = _SGLang(
    name="sglang",
    ip_env="SGLANG_WORKER_IP",
    default_entrypoint=("python3", "-m", "sglang.launch_server"),
    owned_flags=frozenset({
        "--tp", "--tp-size", "--tensor-parallel-size", "--nnodes", "--node-rank",
        "--dist-init-addr", "--host", "--port", "--model-path", "--model",
    }),
)
