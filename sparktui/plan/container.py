"""The exact argv that starts the engine on one node, for docker or tmux.

Shell appears in exactly one place: when mods or a Ray start must run before the
engine, the node runs ``sh -c SCRIPT`` where SCRIPT is built from argv lists
quoted once with ``shlex`` (mod commands are the recipe's own shell lines).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from sparktui.config.hooks import HookEntry
from sparktui.config.recipe import Recipe
from sparktui.plan.engines.base import RAY_PORT, Engine, EngineContext
from sparktui.plan.model import MountPlan

HF_CACHE_CONTAINER = "/root/.cache/huggingface"
LABEL_PREFIX = "sparktui."

# Blocks the Ray head until every node has joined, so vLLM sees all GPUs.
_RAY_WAIT = (
    "import ray, sys, time\n"
    "ray.init(address='auto', logging_level='ERROR')\n"
    "while sum(n['Alive'] for n in ray.nodes()) < int(sys.argv[1]):\n"
    "    time.sleep(2)\n"
)


def container_name(recipe: str) -> str:
    return "sparktui-" + re.sub(r"[^A-Za-z0-9_.-]", "-", recipe)


@dataclass(frozen=True)
class Command:
    """What the container runs: an argv, or a shell script ending in ``exec``."""

    argv: list[str]
    script: str | None = None

    @property
    def wrapped(self) -> list[str]:
        return ["sh", "-c", self.script] if self.script is not None else self.argv


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
    if not prelude:
        return Command(argv)
    return Command(argv, "\n".join([*prelude, "exec " + shlex.join(argv)]))


def docker_run(*, name: str, labels: dict[str, str], env: dict[str, str],
               mounts: list[MountPlan], recipe: Recipe, command: Command,
               multi_node: bool, fabric_ib: bool, is_head: bool) -> list[str]:
    argv = ["docker", "run", "-d", "--name", name]
    for key, value in labels.items():
        argv += ["--label", f"{LABEL_PREFIX}{key}={value}"]
    argv += ["--gpus", "all", "--ipc", "host"]
    if multi_node:
        argv += ["--network", "host", "--ulimit", "memlock=-1", "--ulimit", "stack=67108864"]
        if fabric_ib:
            argv += ["--device", "/dev/infiniband"]
    if recipe.shm_size:
        argv += ["--shm-size", recipe.shm_size]
    if is_head:
        argv += ["-p", f"{recipe.port}:{recipe.port}"]
    for mount in mounts:
        argv += ["-v", mount.volume]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    if command.script is not None:
        return [*argv, "--entrypoint", "sh", recipe.docker_image, "-c", command.script]
    if command.argv[:1] == ["ray"]:
        return [*argv, "--entrypoint", "ray", recipe.docker_image, *command.argv[1:]]
    return [*argv, recipe.docker_image, *command.argv]


def tmux_new_session(*, name: str, labels: dict[str, str], env: dict[str, str],
                     command: Command) -> list[str]:
    """Same env and flags as the container, in a detached tmux session on the host.

    Labels travel as ``SPARKTUI_LABEL_<KEY>`` session variables, which
    ``tmux show-environment`` reads back, so tmux runs are discovered like containers.
    """
    argv = ["tmux", "new-session", "-d", "-s", name]
    labelled = {f"SPARKTUI_LABEL_{k.upper()}": v for k, v in labels.items()}
    for key, value in {**labelled, **env}.items():
        argv += ["-e", tmux_literal(f"{key}={value}")]
    # A lone ";" separates tmux commands: the pane's output is copied to a log file
    # from its first line, so `sparktui logs` reads tmux runs like containers.
    pipe = f"mkdir -p {TMUX_LOG_DIR} && cat > {tmux_log_path(name)}"
    return [*argv, "--", *map(tmux_literal, command.wrapped), ";", "pipe-pane", "-t", name,
            pipe]


def tmux_literal(arg: str) -> str:
    """``arg`` as tmux passes it on verbatim: an argument that ends in ``;`` is read as a
    command separator (``x;`` would run what follows as a tmux command) unless that last
    ``;`` is escaped as ``\\;``, which tmux turns back into ``;`` (tmux 3.3)."""
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


TMUX_LOG_DIR = '"$HOME/.cache/sparktui"'


def tmux_log_path(name: str) -> str:
    """Shell word for the session's log file (``name`` is a sanitized container name)."""
    return f'"$HOME/.cache/sparktui/{name}.log"'
