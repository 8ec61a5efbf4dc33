"""What the engine runs on one node, whatever runtime starts it (``sparktui.plan.runtime``).

Shell appears in exactly one place: when mods or a Ray start must run before the
engine, the node runs ``sh -c SCRIPT`` where SCRIPT is built from argv lists
quoted once with ``shlex`` (mod commands are the recipe's own shell lines).
"""

from __future__ import annotations

import re
import shlex

from sparktui.config.hooks import HookEntry
from sparktui.plan.engines.base import RAY_PORT, Engine, EngineContext
from sparktui.plan.runtime.base import Command

HF_CACHE_CONTAINER = "/root/.cache/huggingface"

COMPILE_CACHES = (("~/.cache/vllm", "/root/.cache/vllm"), ("~/.triton", "/root/.triton"),
                  ("~/.cache/flashinfer", "/root/.cache/flashinfer"))
"""What an engine compiles at its first start (torch.compile and CUDA graphs, Triton
kernels, FlashInfer's JIT), kept on each node's own disk (``~`` is the node user's home)
so the next start skips minutes of compiling. Per node, never shared: the artefacts are
built for that node's GPU and driver, and engines starting at once on several nodes
would race on one shared folder. ``sparktui pull`` never copies them. A recipe that
mounts one of these container paths itself keeps its own (docs/pull.md)."""

# Blocks the Ray head until every node has joined, so vLLM sees all GPUs. Double quotes
# only: the snippet is single-quoted in the script, which is quoted again in argv.
_RAY_WAIT = (
    "import ray, sys, time\n"
    'ray.init(address="auto", logging_level="ERROR")\n'
    'while sum(n["Alive"] for n in ray.nodes()) < int(sys.argv[1]):\n'
    "    time.sleep(2)\n"
)


def container_name(recipe: str) -> str:
    return "sparktui-" + re.sub(r"[^A-Za-z0-9_.-]", "-", recipe)


def mod_lines(mods: list[HookEntry]) -> list[str]:
    lines = []
    total = len(mods)
    for i, mod in enumerate(mods, 1):
        command = mod.command or ""
        failed = f"sparktui: mod {i}/{total} failed: {command}"
        lines.append(f"echo {shlex.quote(f'sparktui: mod {i}/{total}: {command}')}")
        if mod.on_failure == "warn":
            note = shlex.quote(failed + " (continuing)")
            lines.append(f"{{ {command}\n}} || echo {note} >&2")
        else:
            lines.append(f"{{ {command}\n}} || {{ echo {shlex.quote(failed)} >&2; exit 1; }}")
    return lines


def engine_command(engine: Engine, ctx: EngineContext, entrypoint: list[str]) -> Command:
    recipe = ctx.recipe
    prelude = mod_lines(recipe.mods.commands) if recipe.mods else []
    if ctx.uses_ray and not ctx.is_head:
        argv = ["ray", "start", "--block", f"--address={ctx.master_ip}:{RAY_PORT}",
                f"--node-ip-address={ctx.node_ip}"]
    else:
        argv = engine.program(ctx, entrypoint)
        if ctx.uses_ray:
            prelude.append(shlex.join(["ray", "start", "--head", f"--port={RAY_PORT}",
                                       f"--node-ip-address={ctx.node_ip}"]))
            prelude.append(shlex.join(["python3", "-c", _RAY_WAIT, str(ctx.nnodes)]))
    if not prelude:  # a Ray start runs `ray` itself, not the image's entrypoint
        return Command(argv, replaces_entrypoint=argv[:1] == ["ray"])
    return Command(argv, "\n".join([*prelude, "exec " + shlex.join(argv)]))
