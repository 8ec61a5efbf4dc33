"""How ``plan -f sh`` runs a command that needs a secret without writing it in the file.

Every secret a launch argv holds by position (``sparktui.scrub.secret_fields``) is taken
from the environment of whoever runs the script: ``-e HF_TOKEN=…`` of ``docker run``
becomes ``-e HF_TOKEN`` (docker reads the value from its own environment, so it is not
in the node's process list either), any other (``--api-key X``, tmux's ``-e K=V``) a
double-quoted ``"${NAME}"`` the node's shell expands. The script starts by checking each
variable is set and exporting it; a remote node gets the values on ssh's stdin, one
line each, read into its shell's variables before the command runs (never in argv).

A secret found inside a word (a hook command, a ``sh -c`` script, a label) cannot be
passed so: it is written as stars, and the script refuses to run until it is edited.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from sparktui.scrub import STARS, mask_text, scrub, secret_fields

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MARK = "__sparktui_secret_{}__"  # shlex leaves it bare; replaced by "${NAME}"


@dataclass
class Secrets:
    """What the script needs from its runner's environment, in the order first needed."""

    names: list[str] = field(default_factory=list)
    values: set[str] = field(default_factory=set)
    """The secrets passed by name, to scrub wherever else the script would show them."""
    by_name: dict[str, str] = field(default_factory=dict)
    """Each variable's value, for a runner that hands them over itself (a Slurm serve)."""
    masked_inside: bool = False
    """A secret inside a word was written as stars: the script must be edited to run."""

    def need(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)

    def text(self, line: str) -> str:
        """``line`` (a hook's command) with its secrets as stars, noting it."""
        masked = mask_text(line)
        if masked != line:
            self.masked_inside = True
        return masked

    def command(self, argv: list[str]) -> tuple[str, list[str]]:
        """The remote command line for ``argv``, and the variables it reads."""
        words, marks, used = list(argv), {}, []
        fields = sorted(secret_fields(argv) + _whole_env_entries(argv))
        for n, (i, prefix, value, name) in enumerate(fields):
            used.append(name)
            self.values.add(value)
            self.by_name.setdefault(name, value)
            if argv[0] == "docker" and i > 0 and prefix == name + "=" \
                    and argv[i - 1] in ("-e", "--env"):
                words[i] = name
                continue
            mark = _MARK.format(n)
            while any(mark in w for w in argv):
                mark = "_" + mark
            words[i] = prefix + mark
            marks[mark] = '"${' + name + '}"'
        at_fields = {i for i, *_rest in fields}
        words = [w if i in at_fields else self.text(w) for i, w in enumerate(words)]
        line = shlex.join(words)
        for mark, expansion in marks.items():
            line = line.replace(mark, expansion)
        for name in used:
            self.need(name)
        return line, list(dict.fromkeys(used))

    def scrubbed(self, lines: list[str]) -> list[str]:
        """``lines`` with every value passed by name scrubbed wherever else it shows (in
        every form, when it has at least 4 characters), noting it when one did."""
        out = [scrub(line, self.values) for line in lines]
        if out != lines:
            self.masked_inside = True
        return out

    def preamble(self) -> list[str]:
        """The script's first lines: a refusal when a secret had to be starred, then each
        variable checked (``set -u`` and ``${NAME?}``: a clear error when unset) and
        exported."""
        lines = []
        if self.masked_inside:
            why = shlex.quote(f"this script has secrets inside commands, written as {STARS}: "
                              "put them back by hand, then delete this line")
            lines.append(f"printf '%s\\n' {why} >&2; exit 1")
        for name in self.names:
            missing = f"{name} is not set: this script takes it from your environment"
            lines.append(f': "${{{name}?{missing}}}"')
        if self.names:
            lines.append("export " + " ".join(self.names))
        return lines


def _whole_env_entries(argv: list[str]) -> list[tuple[int, str, str, str]]:
    """``-e NAME=value`` entries whose value holds a secret inside it (a password in
    ``DATABASE_URL``): the whole variable is passed by name."""
    named = {i for i, *_rest in secret_fields(argv)}
    out = []
    for i in range(1, len(argv)):
        name, sep, value = argv[i].partition("=")
        if (i not in named and sep and argv[i - 1] in ("-e", "--env")
                and _ENV_NAME.fullmatch(name) and mask_text(value) != value):
            out.append((i, name + "=", value, name))
    return out


def reading(names: list[str], command: str) -> str:
    """``command`` for a remote shell, preceded by reading ``names`` from stdin, a line each."""
    reads = " && ".join(f"IFS= read -r {n}" for n in names)
    return f"{reads} && export {' '.join(names)} && {command}"


def feeding(names: list[str]) -> str:
    """The local side of ``reading``: the values, one line each, for ssh's stdin."""
    return "printf '%s\\n' " + " ".join(f'"${{{n}}}"' for n in names)
