"""The shell lines that keep supervision's files on a node. Pure: strings only.

Everything lives in ``$HOME/.local/state/sparktui/supervise`` of ``ssh_user`` on the node:
``lease`` and ``state.json`` on the head (rank 0) of the group, ``marks.jsonl`` on every
node. What is written comes on stdin, never in the command line; the few words that are
(a token of hex digits, a number) are quoted all the same. The lease is taken and renewed
under ``flock`` on the node, so two supervisors starting at once cannot both win.
"""

from __future__ import annotations

import shlex

from sparktui.engine.supervise.record import LEASE_MARKER, STATE_MARKER

DIR = '"$HOME/.local/state/sparktui/supervise"'
MARKS_KEPT = 100
"""Lines of ``marks.jsonl`` kept: the file is cut to the newest half beyond this."""

# Owner only (issue 28): the state holds log lines, the marks who stopped what. A folder
# made before this (0755) is closed too; one the on-node supervisor's root made is left.
_ENTER = (f"umask 077; d={DIR}; mkdir -p \"$d\" && {{ chmod 700 \"$d\" 2>/dev/null; "
          "cd \"$d\"; } || exit 1; ")
# Best effort where flock is missing: the lease is then only as good as the file system.
# A lock not had in time is an error, never a licence to go on without it; what comes on
# stdin is read before the lock is asked for, so a slow writer cannot hold the others up.
LOCK_WAIT = 10
"""Seconds a line waits for the lock before it gives up with ``lock busy``."""


def _lock() -> str:
    return ("exec 9>>lock; if command -v flock >/dev/null 2>&1; then "
            f'flock -w {int(LOCK_WAIT)} 9 || '
            '{ rm -f "$in"; echo "lock busy" >&2; exit 75; }; fi; ')


_STDIN = 'in="in.$$"; cat > "$in" || exit 1; '
_AGE = '$(( $(date +%s) - $(stat -c %Y lease) ))'


def acquire(token: str, ttl: int) -> str:
    """Take the lease (its text on stdin) unless another holder's heartbeat is fresh.

    Prints ``taken``, or ``held AGE`` and the holder's lease."""
    mine, limit = shlex.quote(token), shlex.quote(str(int(ttl)))
    return (_ENTER + _STDIN + _lock() + "if [ -s lease ]; then read -r tok ttl < lease; "
            f"age={_AGE}; "
            f'if [ "$tok" != {mine} ] && [ "$age" -lt "${{ttl:-{limit}}}" ]; then '
            'rm -f "$in"; echo "held $age"; cat lease; exit 0; fi; fi; '
            'mv "$in" lease && echo taken')


def renew(token: str) -> str:
    """The heartbeat: touch the lease if it is still ours; else print ``lost`` and it."""
    mine = shlex.quote(token)
    return (_ENTER + _lock() + "tok=; [ -s lease ] && read -r tok _ < lease; "
            f'if [ "$tok" = {mine} ]; then touch lease && echo ok; '
            "else echo lost; cat lease 2>/dev/null; fi")


def release(token: str) -> str:
    mine = shlex.quote(token)
    return (_ENTER + _lock() + "tok=; [ -s lease ] && read -r tok _ < lease; "
            f'if [ "$tok" = {mine} ]; then rm -f lease; fi; true')


def write_state() -> str:
    """Replace ``state.json`` with stdin, atomically (readers see the old or the new)."""
    return _ENTER + 'cat > "state.json.$$" && mv "state.json.$$" state.json'


def close(digest: str | None, lapsed: str | None) -> str:
    """Make an ended supervision history, under the lock: replace ``state.json`` with stdin
    only while its sha256 is still ``digest`` (nobody wrote it since it was read), and
    remove the lease only while it is still token ``lapsed``'s and its heartbeat older
    than its ttl (a supervisor that is alive, or took over since, is never touched).
    Prints ``record`` and ``lease`` for what it did."""
    parts = [_ENTER, _STDIN, _lock()]
    if digest is not None:
        parts.append('sum=$(sha256sum < state.json 2>/dev/null); '
                     f'if [ "${{sum%% *}}" = {shlex.quote(digest)} ]; then '
                     'mv "$in" state.json && echo record; fi; ')
    parts.append('rm -f "$in"; ')
    if lapsed is not None:
        parts.append('if [ -s lease ]; then read -r tok ttl < lease; '
                     f'age={_AGE}; if [ "$tok" = {shlex.quote(lapsed)} ] && '
                     '[ "$age" -ge "$ttl" ] 2>/dev/null; then rm -f lease && echo lease; fi; '
                     'fi; ')
    return "".join(parts) + "true"


def read_status() -> str:
    """What ``record.parse_status`` reads: the lease with its age, then the record."""
    return (f"cd {DIR} 2>/dev/null || exit 0; "
            f'if [ -s lease ]; then echo "{LEASE_MARKER} {_AGE}"; cat lease; fi; '
            f"if [ -s state.json ]; then echo {STATE_MARKER}; cat state.json; fi; true")


def append_mark() -> str:
    """Add stdin (one line) to ``marks.jsonl``, cutting the file when it grew long."""
    keep = MARKS_KEPT // 2
    return (_ENTER + _STDIN + _lock() + "if [ -f marks.jsonl ] && "
            f'[ "$(wc -l < marks.jsonl)" -gt {MARKS_KEPT} ]; then '
            f"tail -n {keep} marks.jsonl > marks.tmp && mv marks.tmp marks.jsonl; fi; "
            'cat "$in" >> marks.jsonl; rm -f "$in"')


def read_marks() -> str:
    return f"cat {DIR}/marks.jsonl 2>/dev/null; true"


def home() -> str:
    """Where the on-node supervisor's files go: the absolute path ``DIR`` names."""
    return f'printf "%s\\n" {DIR}'
