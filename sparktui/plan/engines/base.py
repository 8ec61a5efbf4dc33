"""What an engine contributes to a launch: its program, flags and env names."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from sparktui.config.recipe import Recipe

MASTER_PORT = 29501
RAY_PORT = 6379


def rendezvous(launch: list[str], head_ip: str) -> tuple[str, int] | None:
    """Where a multi-node group's head waits for its ranks (a fixed port on the host
    network: two groups headed on one node would collide), from the head's argv (a
    ``sh -c`` line of mods or Ray is read word by word)."""
    words = [w for arg in launch for w in (arg.split() if " " in arg else [arg])]
    given: dict[str, str] = {}
    for flag, value in itertools.pairwise(words):
        given.setdefault(flag, value)
    if "--master-port" in given:
        return given.get("--master-addr", head_ip), int(given["--master-port"])
    if "--dist-init-addr" in given:
        host, _, port = given["--dist-init-addr"].rpartition(":")
        return host, int(port)
    if "ray" in given and given["ray"] == "start" and "--head" in words:
        return head_ip, RAY_PORT
    return None


@dataclass(frozen=True)
class EngineContext:
    recipe: Recipe
    nnodes: int
    rank: int
    master_ip: str
    node_ip: str
    pipeline_parallel_size: int

    @property
    def is_head(self) -> bool:
        return self.rank == 0

    @property
    def uses_ray(self) -> bool:
        return self.recipe.distributed_backend == "ray"


@dataclass(frozen=True)
class Engine:
    name: str
    ip_env: str
    """Environment variable that tells the engine which fabric address is its own."""
    default_entrypoint: tuple[str, ...]
    """Used where there is no image entrypoint to rely on (tmux runtime, a Ray start)."""
    owned_flags: frozenset[str]
    """Flags sparktui derives from the cluster; a recipe may not set them in args."""

    def model_args(self, recipe: Recipe) -> list[str]:
        raise NotImplementedError

    def flags(self, ctx: EngineContext) -> list[str]:
        raise NotImplementedError

    def program(self, ctx: EngineContext, entrypoint: list[str]) -> list[str]:
        """The engine's argv: entrypoint, model, generated flags, then recipe args."""
        return [*entrypoint, *self.model_args(ctx.recipe), *self.flags(ctx), *ctx.recipe.args]

    def owned_flag_in(self, arg: str) -> str | None:
        """The owned flag ``arg`` sets, also when spelled with ``_`` or abbreviated,
        both of which the engines' argument parsers accept."""
        flag = arg.split("=", 1)[0]
        if flag in self.owned_flags:
            return flag
        if not flag.startswith("--") or len(flag) < 4:
            return None
        dashed = "--" + flag[2:].replace("_", "-")
        matches = sorted(f for f in self.owned_flags if f.startswith(dashed))
        return matches[0] if matches else None
