"""Show a long argv as a copy-pasteable multi-line shell command."""

from __future__ import annotations

import shlex


def grouped(argv: list[str]) -> list[list[str]]:
    """Pair each ``--flag`` with the value that follows it (if it is not a flag)."""
    groups: list[list[str]] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if arg.startswith("-") and "=" not in arg and nxt is not None and not nxt.startswith("-"):
            groups.append([arg, nxt])
            i += 2
        else:
            groups.append([arg])
            i += 1
    return groups


def pretty(argv: list[str], indent: str = "  ") -> str:
    """First two words on the first line, one flag (with its value) per line after."""
    head, rest = argv[:2], argv[2:]
    lines = [shlex.join(head)] + [shlex.join(g) for g in grouped(rest)]
    return (" \\\n" + indent + "  ").join(lines)
