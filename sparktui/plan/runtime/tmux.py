"""Workloads as detached tmux sessions on the host: no image, the same env and labels.

Labels travel as ``SPARKTUI_LABEL_<KEY>`` session variables, which
``tmux show-environment -s`` reads back, so sessions are found like containers; the pane's
output is copied to a log file from its first line (``_LOGGED``), so logs read like a
container's.

A recipe's env value may hold a newline, and so print a line that looks like a label.
``-s`` prints each variable as ``NAME="value"; export NAME;`` with every ``"`` of a value
escaped, so a line that opens ``SPARKTUI_LABEL_<KEY>="`` starts a variable: no value can
forge one (``_LABEL_LINE``).
"""

from __future__ import annotations

import re
import shlex

from sparktui.plan.runtime.base import (
    MISSING,
    RUN_LABEL,
    Found,
    Launch,
    Listing,
    Output,
    Removal,
    Runtime,
    State,
    Unanswered,
)
from sparktui.plan.runtime.foreign import Foreign
from sparktui.said import said

LABEL_ENV = "SPARKTUI_LABEL_"
LOG_DIR = '"$HOME/.cache/sparktui"'

_EXIT_OPTION = "@sparktui_exit"
_PANE = f"#{{pane_dead}}:#{{pane_dead_status}}:#{{pane_dead_signal}}:#{{{_EXIT_OPTION}}}"
"""``0:::`` while the command runs; ``1:<status>::<kept>`` or ``1::<signal>:`` once it has
ended (its pane is kept: ``remain-on-exit``). tmux can mark a pane dead when its terminal
closes and never learn the status of the process behind it (seen on tmux 3.3a under load:
``1::`` for good, "exited" without the 5). So the wrapper keeps the status itself in a
pane option just before it exits (``_LOGGED``), and that is read when tmux has none."""
_STATE_MARK = "@@state "
_ERROR = "@@sparktui-tmux-error@@"
# Only sessions named sparktui-* that carry our labels are ours (see parse_list). Each
# session's state line comes first, before any label's value could print one. A tmux that
# fails is reported with its error (never read as "no sessions"); only its words for no
# server (``_NO_SERVER``) and a node without tmux (exit 127) mean none.
_LIST = (
    "ls=$(tmux ls -F '#{session_name}' 2>&1); rc=$?; "
    'if [ "$rc" -ne 0 ]; then case "$rc:$ls" in '
    "127:*|*:'no server running on '*|*:'error connecting to '*'(No such file or directory)') ;; "
    f'*) echo {_ERROR}; printf "%s\\n" "$ls" | head -n 3;; esac; '
    'else printf "%s\\n" "$ls" | while read -r s; do '
    'case "$s" in sparktui-*) echo "== $s"; '
    f"tmux display-message -p -t \"$s\" '{_STATE_MARK}{_PANE}' 2>/dev/null; "
    f"tmux show-environment -s -t \"$s\" 2>/dev/null | grep '^{LABEL_ENV}';; esac; done; fi; true"
)
_NO_SERVER = re.compile(r"^(?:no server running on |error connecting to .*\(No such file or "
                        r"directory\)$|can't find session)", re.MULTILINE)
"""tmux's words (3.3) for "no such session": its server is not running (a socket left
behind, or none at all), or it has no session of that name. Any other failure
(permission denied, a server that does not answer) says nothing of the sessions."""
_ERROR_CHARS = 300
_DEAD = re.compile(r"1:(-?\d+)?:(\d+)?:(-?\d+)?")
_RUNNING = re.compile(r"0:[^:]*:[^:]*:(-?\d+)?")
_LABEL_LINE = re.compile(rf'{LABEL_ENV}([A-Z0-9_]+)="((?:[^"\\]|\\.)*)"; export {LABEL_ENV}\1;')
"""One label as ``show-environment -s`` prints it (a value's ``"$`\\`` escaped)."""
_ESCAPED = re.compile(r"\\(.)")


_LOGGED = (f'mkdir -p {LOG_DIR}; exec 4>&1; s=$({{ {{ "$@" 2>&1 3>&- 4>&-; echo $? >&3; }} '
           f'| tee "$HOME/.cache/sparktui/$0.log" >&4; }} 3>&1); '
           f'tmux set-option -p -t "$TMUX_PANE" {_EXIT_OPTION} "$s" 2>/dev/null; exit "$s"')
"""The pane runs its command through ``tee`` into the log file, so ``sparktui logs``
reads tmux runs like containers. tmux's ``pipe-pane`` did this before and lost a
command's last lines when it ended at once (its pipe was dropped with the pane before
it was written out, or read before its writer ran): the pane now ends only after
``tee`` wrote every line, so a session that ended has its whole log. The command's
output is then a pipe, not the pane's terminal; engines log through ``logging``, which
flushes each line. The pane exits with the command's status (not ``tee``'s: fd 3 carries
it past the pipe), which the pane that is kept shows."""


def log_path(name: str) -> str:
    """Shell word for the session's log file. ``name`` is what a node listed (untrusted:
    a session's name can hold quotes, ``$(…)``, ``;``), so it is quoted here, at the edge;
    only ``$HOME`` is the shell's to expand."""
    return '"$HOME"/.cache/sparktui/' + shlex.quote(f"{name}.log")


def literal(arg: str) -> str:
    """``arg`` as tmux passes it on verbatim: an argument that ends in ``;`` is read as a
    command separator (``x;`` would run what follows as a tmux command) unless that last
    ``;`` is escaped as ``\\;``, which tmux turns back into ``;`` (tmux 3.3)."""
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


def attach_argv(name: str) -> list[str]:
    """Hand the terminal to the session (run on its node)."""
    return ["tmux", "attach-session", "-t", name]


class _Said:
    """A state line of the listing, read as ``state_command``'s answer."""

    exit_code = 0
    stderr = ""

    def __init__(self, stdout: str) -> None:
        self.stdout = stdout


class Tmux(Runtime):
    name = "tmux"
    runs_image = False
    keeps_ended = True  # the pane is kept when its command ends: its output, its status
    can_attach = True

    def launch(self, spec: Launch) -> list[str]:
        argv = ["tmux", "new-session", "-d", "-s", spec.name]
        labelled = {f"{LABEL_ENV}{k.upper()}": v for k, v in spec.labels.items()}
        for key, value in {**labelled, **spec.env}.items():
            argv += ["-e", literal(f"{key}={value}")]
        # The session name is the script's $0, so the script holds no value of ours.
        held = ["sh", "-c", _LOGGED, spec.name, *spec.command.wrapped]
        # In the same tmux command list, so set before the server sees the command end:
        # a command that dies at once leaves its pane, its last output and its status.
        keep = [";", "set-option", "-w", "-t", spec.name, "remain-on-exit", "on"]
        return [*argv, "--", *map(literal, held), *keep]

    def stamp(self, argv: list[str], run_id: str) -> list[str]:
        if argv[:2] != ["tmux", "new-session"]:
            raise ValueError("not a tmux new-session")
        return [*argv[:2], "-e", f"{LABEL_ENV}{RUN_LABEL.upper()}={run_id}", *argv[2:]]

    def state_command(self, name: str) -> str:
        # display-message alone answers even for a session that is not there; stderr
        # kept: only tmux's "no such session" words mean it is not there (parse_state)
        return (shlex.join(["tmux", "has-session", "-t", name]) + " && "
                + shlex.join(["tmux", "display-message", "-p", "-t", name, _PANE]))

    def parse_state(self, out: Output) -> State:
        if out.exit_code != 0:
            words = out.stderr.strip() or out.stdout.strip()
            if out.exit_code == 127 or _NO_SERVER.search(words) is not None:
                return State(MISSING)  # no such session (or no tmux: none at all)
            raise Unanswered(words[:_ERROR_CHARS])
        said = out.stdout.strip()
        if (dead := _DEAD.fullmatch(said)) is not None:
            status, signal, kept = dead.groups()
            if status is None and signal is None and kept is not None:
                status = kept  # tmux never reaped it; the wrapper said how it ended
            return State("exited", int(status) if status is not None else None)
        return State("running") if _RUNNING.fullmatch(said) else State("unknown")

    def logs_command(self, name: str, tail: int | None, follow: bool) -> str:
        path = log_path(name)
        if not follow:
            # The log file; empty (the command wrote to its terminal, or died before
            # ``tee`` could write), what the kept pane shows, with its status line.
            lines = "" if tail is None else f" | tail -n {max(tail, 0)}"
            pane = shlex.join(["tmux", "capture-pane", "-p", "-J", "-S", "-", "-E", "-",
                               "-t", name])
            read = f"cat {path}" if tail is None else f"tail -n {max(tail, 0)} {path}"
            return (f"if test -s {path}; then exec {read}; fi; "
                    f"{pane} 2>/dev/null | sed -e '/^$/d'{lines}")
        lines = "+1" if tail is None else str(max(tail, 0))
        # --pid ends the follow when the session's process ends, like `docker logs -f`.
        pane = shlex.join(["tmux", "display-message", "-p", "-t", name, "#{pane_pid}"])
        return f'pid=$({pane}) && exec tail -n {lines} -F --pid="$pid" {path}'

    def removal(self, name: str, grace_seconds: float) -> Removal:
        return Removal(remove=shlex.join(["tmux", "kill-session", "-t", name]))

    def removed(self, out: Output) -> bool:
        return out.exit_code == 0 or "can't find session" in out.stderr

    def list_command(self) -> str:
        return _LIST

    def parse_list(self, text: str) -> Listing:
        if text.lstrip().startswith(_ERROR):
            why = text.lstrip()[len(_ERROR):].strip()[:_ERROR_CHARS]
            return Listing([], f"tmux: {why or 'failed'}")
        found = []
        session: str | None = None
        labels: dict[str, str] = {}
        twice: list[str] = []

        state: State = State("unknown")
        first = False

        def flush() -> None:
            # A session named sparktui-* without our labels belongs to someone else.
            if session is not None and labels.get("recipe"):
                why = said(Foreign.LABEL_TWICE, key=twice[0]) if twice else ""
                status = (state.status if state.exit_code is None
                          else f"{state.status} ({state.exit_code})")
                found.append(Found(name=session, labels=labels, state=state.status,
                                   status=status, exit_code=state.exit_code, foreign=why))

        for line in text.splitlines():
            if line.startswith("== "):
                flush()
                session, labels, twice, first = line[3:].strip(), {}, [], True
                state = State("unknown")  # until its state line says
                continue
            after_name, first = first, False
            if after_name and line.startswith(_STATE_MARK):  # only the line after "=="
                state = self.parse_state(_Said(line[len(_STATE_MARK):]))
            elif (label := _LABEL_LINE.fullmatch(line)) is not None:
                # Any other line is part of a value (a newline in it): never a label.
                key = label.group(1).lower()
                if key in labels:
                    twice.append(key)
                labels[key] = _ESCAPED.sub(r"\1", label.group(2))
        flush()
        return Listing(found)
