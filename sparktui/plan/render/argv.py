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


_SCRIPT_WORD = "__sparktui_script__"  # shlex leaves it bare; replaced by "$SCRIPT"


def launch_lines(argv: list[str], indent: str = "    ") -> list[str]:
    """``pretty``, with a multi-line ``sh -c`` script shown as the script it is: read from a
    quoted here-document into ``$SCRIPT`` (quoted inside ``docker run``'s argv, its quotes
    would be escaped once per level). The lines are the script's own, unindented, so a
    copy still runs it; the here-document's end word is one no line of it is."""
    scripts = [i for i, arg in enumerate(argv) if "\n" in arg and i > 0 and argv[i - 1] == "-c"]
    if not scripts:
        return [indent + pretty(argv, indent=indent)]
    at = scripts[-1]
    script = argv[at].rstrip("\n")
    end = "SPARKTUI_SCRIPT"
    while end in script.splitlines():
        end += "_"
    shown = pretty([*argv[:at], _SCRIPT_WORD, *argv[at + 1:]], indent=indent)
    return [f"{indent}SCRIPT=$(cat <<'{end}'", *script.splitlines(), end, ")",
            indent + shown.replace(_SCRIPT_WORD, '"$SCRIPT"')]
