"""The exit codes every command shares, and what each command means by them.

One place: ``--help`` (each command's epilog), the README's table and the commands'
``return`` statements all read these (tests/cli/test_cli_exit_codes.py holds them to it).
"""

from __future__ import annotations

from enum import IntEnum

from sparktui.i18n import N_, _


class ExitCode(IntEnum):
    OK = 0  # done, or nothing to do
    FAILED = 1  # a check or an operation failed on the cluster
    BAD_INPUT = 2  # bad input (arguments, config, recipe): nothing was run
    REFUSED = 3  # refused for safety (no confirmation, another supervisor): nothing changed
    DOES_NOT_FIT = 4  # the model does not fit a node's memory (fit; serve's refusal)
    FIT_UNKNOWN = 5  # fit: the model's files are not on a node (it would be downloaded)
    INTERRUPTED = 130  # Ctrl+C where it is not the normal way to end (128 + SIGINT)


BAD_INPUT = (ExitCode.BAD_INPUT, N_("bad input (arguments, config, recipe): nothing was run"))
REFUSED = (ExitCode.REFUSED, N_("refused: not confirmed (no --yes and no terminal, or the "
                                "name typed wrong); nothing changed"))

COMMAND_CODES: dict[str, tuple[tuple[int, str], ...]] = {
    "plan": ((ExitCode.OK, N_("the plan was printed or written")), BAD_INPUT),
    "schema": ((ExitCode.OK, N_("the schema was printed or written")), BAD_INPUT),
    "serve": (
        (ExitCode.OK, N_("serving (or the --dry-run plan printed); a recipe of terminal "
                         "services exits with their worst exit code instead")),
        (ExitCode.FAILED, N_("serve failed; what it started was removed (unless "
                             "--keep-on-failure)")),
        BAD_INPUT,
        (ExitCode.REFUSED, N_("another recipe serves the same model name behind the "
                              "cluster's router: nothing was started (--share-model "
                              "balances both)")),
        (ExitCode.DOES_NOT_FIT, N_("the model does not fit a node's memory: nothing was "
                                   "started (--force goes on)"))),
    "recipes": (
        (ExitCode.OK, N_("the recipes were listed (one that does not load shows why)")),
        (ExitCode.BAD_INPUT, N_("bad input (arguments, config, no recipes folder): "
                                "nothing was listed"))),
    "fit": (
        (ExitCode.OK, N_("fits, or tight (under 10% of the share left), on every node")),
        (ExitCode.FAILED, N_("a node could not be checked")),
        BAD_INPUT,
        (ExitCode.DOES_NOT_FIT, N_("does not fit on a node")),
        (ExitCode.FIT_UNKNOWN, N_("unknown: the model's files are not in a node's HF cache "
                                  "and the Hub could not be asked for them (or its answer "
                                  "was not usable)"))),
    "stop": (
        (ExitCode.OK, N_("stopped, or nothing runs (nothing to stop)")),
        (ExitCode.FAILED, N_("a node or a container could not be stopped")),
        BAD_INPUT, REFUSED),
    "restart": (
        (ExitCode.OK, N_("restarted and serving, or nothing of the recipe runs (nothing to "
                         "restart)")),
        (ExitCode.FAILED, N_("the stop failed (nothing was served), or the serve after it "
                             "failed: the recipe is down")),
        BAD_INPUT,
        (ExitCode.REFUSED, N_("refused: not confirmed, or another recipe serves the same "
                              "model name behind the router (--share-model); nothing "
                              "changed"))),
    "supervise": (
        (ExitCode.OK, N_("ended by an operator (stop, power off, --end, Ctrl+C); --end "
                         "done; or --on-node installed")),
        (ExitCode.FAILED, N_("gave up (too many restarts, memory not reclaimed), or lost the "
                             "group; --end: a node did not take the mark")),
        BAD_INPUT,
        (ExitCode.REFUSED, N_("another supervisor holds the group"))),
    "health": (
        (ExitCode.OK, N_("every node answered (serving or not); --deep: the completion "
                         "answered, or nothing serves")),
        (ExitCode.FAILED, N_("a node or its docker did not answer; --deep: the serving "
                             "engine did not complete")),
        BAD_INPUT),
    "top": (
        (ExitCode.OK, N_("--count samples taken, or Ctrl+C")),
        BAD_INPUT),
    "logs": (
        (ExitCode.OK, N_("the logs were shown (-f: until Ctrl+C)")),
        (ExitCode.FAILED, N_("no sparktui workload runs there, or a node did not say what "
                             "runs on it: its logs are unknown")),
        BAD_INPUT),
    "exec": (
        (ExitCode.OK, N_("the command exited 0 on every node")),
        (ExitCode.FAILED, N_("it exited non-zero, or a node did not answer")),
        BAD_INPUT),
    "doctor": (
        (ExitCode.OK, N_("no check failed (warnings allowed)")),
        (ExitCode.FAILED, N_("a check failed")),
        BAD_INPUT),
    "tmux": (
        (ExitCode.OK, N_("attached (the exit code is then ssh's or tmux's)")),
        (ExitCode.FAILED, N_("no sparktui tmux session on the node, or the node did not "
                             "answer")),
        BAD_INPUT),
    "shell": (
        (ExitCode.OK, N_("the shell ended (the exit code is then ssh's or the shell's)")),
        (ExitCode.FAILED, N_("no running sparktui container on the node, or it did not "
                             "answer")),
        (ExitCode.BAD_INPUT, N_("bad input, or several recipes run there and none was "
                                "named: nothing was run"))),
    "inspect": (
        (ExitCode.OK, N_("the container was shown")),
        (ExitCode.FAILED, N_("no sparktui container on the node, or it did not answer")),
        (ExitCode.BAD_INPUT, N_("bad input, or several recipes run there and none was "
                                "named: nothing was run"))),
    "init-host-keys": (
        (ExitCode.OK, N_("every key recorded or unchanged")),
        (ExitCode.FAILED, N_("a key changed (kept, not replaced) or a node did not answer")),
        BAD_INPUT),
    "bench": (
        (ExitCode.OK, N_("every level measured (errors counted in the result), or the "
                         "runs listed or compared")),
        (ExitCode.FAILED, N_("the cluster could not be checked, or the benchmark tool "
                             "failed")),
        (ExitCode.BAD_INPUT, N_("bad input, nothing serving, or the benchmark tool not "
                                "installed: nothing was run")),
        (ExitCode.INTERRUPTED, N_("Ctrl+C: the load stopped, what was measured is kept"))),
    "pin": (
        (ExitCode.OK, N_("the digest every node has was written into the recipe")),
        (ExitCode.FAILED, N_("a node did not answer, lacks the image, or has no digest of "
                             "it (never pulled from a registry): nothing was written")),
        BAD_INPUT,
        (ExitCode.REFUSED, N_("the nodes have different digests, or a node's answer is not "
                              "a digest of the recipe's repo: nothing was written"))),
    "pull": (
        (ExitCode.OK, N_("every node has the recipe's image (the same image ID), or had it")),
        (ExitCode.FAILED, N_("a node did not answer, or a pull or copy failed (named)")),
        BAD_INPUT,
        (ExitCode.REFUSED, N_("not confirmed, or nodes that do not trust each other over "
                              "SSH (named): nothing was moved")),
        (ExitCode.INTERRUPTED, N_("Ctrl+C: the copies under way ended; no half-loaded image "
                                  "is tagged"))),
    "power": (
        (ExitCode.OK, N_("every step done")),
        (ExitCode.FAILED, N_("a step was not done (listed)")),
        (ExitCode.BAD_INPUT, N_("bad input, or no [home_assistant] in the config: nothing "
                                "was run")),
        REFUSED),
}


def epilog(command: str) -> str:
    """A command's exit codes for its ``--help``, in the user's language."""
    rows = "\n".join(f"  {code:>3}  {_(meaning)}" for code, meaning in COMMAND_CODES[command])
    return _("exit codes:") + "\n" + rows


def overview() -> str:
    """The main ``--help``'s epilog: the shared meaning of each code."""
    meanings = {
        ExitCode.OK: N_("done, or nothing to do"),
        ExitCode.FAILED: N_("a check or an operation failed on the cluster"),
        ExitCode.BAD_INPUT: N_("bad input: nothing was run"),
        ExitCode.REFUSED: N_("refused for safety: nothing changed"),
        ExitCode.DOES_NOT_FIT: N_("fit, serve: the model does not fit a node's memory"),
        ExitCode.FIT_UNKNOWN: N_("fit: the model's files are not on a node yet"),
        ExitCode.INTERRUPTED: N_("interrupted (Ctrl+C), except where Ctrl+C is the normal "
                                 "end (logs -f, top, supervise): 0"),
    }
    rows = "\n".join(f"  {int(code):>3}  {_(text)}" for code, text in meanings.items())
    return (_("exit codes (each command's --help has its own):") + "\n" + rows)


def markdown_table() -> str:
    """The README's table (English): one row per command."""
    lines = ["| command | exit codes |", "| --- | --- |"]
    for command, codes in COMMAND_CODES.items():
        cell = "; ".join(f"{int(code)} {meaning}" for code, meaning in codes)
        lines.append(f"| `{command}` | {cell} |")
    return "\n".join(lines)
