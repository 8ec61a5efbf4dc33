"""The run id of a launch in a ``plan -f sh`` script: made by the node's shell as the
launch runs, since the plan is pure and carries none (``runtime.base.RUN_LABEL``).

The plan's argv gets a placeholder word (``Runtime.stamp``); once it is quoted for the
node's shell, that word's value becomes a command substitution that reads 8 random
bytes there, so a script run twice starts two runs, each with its own id.
"""

from __future__ import annotations

from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.runtime import runtime_for

PLACEHOLDER = "@run@"
"""Left bare by ``shlex.quote`` (only safe characters), so it is found once quoted."""
MADE_ON_NODE = "\"$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')\""
"""16 hex digits from the node's /dev/urandom, as ``secrets.token_hex(8)`` gives."""


def with_placeholder(runtime: RuntimeName, argv: list[str]) -> list[str]:
    return runtime_for(runtime).stamp(argv, PLACEHOLDER)


def made_on_node(command: str) -> str:
    """``command`` (a quoted launch line of ``with_placeholder``'s argv) with its run id
    made on the node. The stamp is the first ``=<placeholder>`` word: it comes before any
    word of the recipe's (``Runtime.stamp`` puts it right after the program's name)."""
    word = "=" + PLACEHOLDER
    at = command.find(word + " ")
    if at < 0:
        raise ValueError("no run id placeholder")
    return command[:at + 1] + MADE_ON_NODE + command[at + len(word):]
