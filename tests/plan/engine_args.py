"""The engine's own arguments inside a planned launch, for the flag contract test.

A launch is docker's or tmux's argv; the engine's command sits after the image (or after
tmux's ``--``), or on the ``exec`` line of an ``sh -c`` script when mods or a Ray start
wrap it. What is handed to the real parser is what the node would run, split as its
shell would split it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

SERVE = "serve"  # vllm serve MODEL ...
API_SERVER = "api_server"  # python3 -m vllm.entrypoints.openai.api_server ...
ENGINE_ARGS = "engine_args"  # python3 -m dynamo.vllm ...: vLLM's engine arguments
SGLANG = "sglang"  # python3 -m sglang.launch_server ...

_MODULES = {"vllm.entrypoints.openai.api_server": API_SERVER, "dynamo.vllm": ENGINE_ARGS,
            "sglang.launch_server": SGLANG}


@dataclass(frozen=True)
class EngineCall:
    """How the engine is started (``SERVE``, ...) and the arguments it is given."""

    kind: str
    args: list[str]


def engine_call(launch: list[str]) -> EngineCall | None:
    """The engine's command in ``launch``; None for a member that starts no engine (a Ray
    worker's ``ray start``)."""
    if "-c" in launch and "sh" in launch:
        script = launch[launch.index("-c") + 1]
        execs = [line for line in script.splitlines() if line.startswith("exec ")]
        return _find(shlex.split(execs[-1])[1:]) if execs else None
    return _find(launch)


def _find(argv: list[str]) -> EngineCall | None:
    for i, word in enumerate(argv):
        rest = _until_tmux_separator(argv[i + 1:])
        if PurePosixPath(word).name == "vllm" and rest[:1] == [SERVE]:
            return EngineCall(SERVE, rest[1:])
        if word == "-m" and rest and rest[0] in _MODULES:
            return EngineCall(_MODULES[rest[0]], rest[1:])
    return None


def _until_tmux_separator(argv: list[str]) -> list[str]:
    """A tmux launch chains its commands with ``;`` words: the engine's ends at the first."""
    return argv[:argv.index(";")] if ";" in argv else argv
