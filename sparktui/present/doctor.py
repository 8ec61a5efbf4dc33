"""doctor's checks in words: a line per check, the columns padded by display width (a
translated status or check name is longer than the English one), the hint below.

The JSON output keeps the checks' own names (``ssh``, ``nic enp1s0f1np1``) and their
details and hints as codes (``Check.as_dict``); the text shows them in the user's
language, the words of each sentence made here.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len

from sparktui.engine.api import Check
from sparktui.i18n import N_, _

STATUS_LABELS = {"pass": N_("PASS"), "warn": N_("WARN"), "fail": N_("FAIL")}
CHECK_LABELS = {"ssh": N_("ssh"), "local": N_("local"), "docker": N_("docker"),
                "gpu": N_("gpu"), "gpu runtime": N_("gpu runtime"), "memory": N_("memory"),
                "disk": N_("disk"), "nic": N_("nic"),
                "fabric ip": N_("fabric ip"), "clock": N_("clock"), "image": N_("image"),
                "engine metrics": N_("engine metrics"), "trust": N_("trust")}
"""engine/doctor.py's check names; ``nic``, ``image`` and ``trust`` (engine/pull/trust.py)
are followed by what they check."""


def check_label(name: str) -> str:
    if name in CHECK_LABELS:
        return _(CHECK_LABELS[name])
    head, _sep, rest = name.partition(" ")
    return f"{_(CHECK_LABELS[head])} {rest}" if head in CHECK_LABELS and rest else name


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - cell_len(text))


def doctor_lines(checks: Iterable[Check]) -> list[str]:
    checks = list(checks)
    rows = [(_(STATUS_LABELS.get(c.status, c.status)), c.node, check_label(c.name))
            for c in checks]
    if not rows:
        return []
    widths = [max(cell_len(row[i]) for row in rows) for i in range(3)]
    widths[2] = max(widths[2], 14)
    indent = " " * (sum(widths[:2]) + 2)
    hint_label = _("hint")
    lines = []
    for (status, node, name), check in zip(rows, checks, strict=True):
        line = f"{_pad(status, widths[0])} {_pad(node, widths[1])} {_pad(name, widths[2])} " \
               f"{check.detail}"
        if check.hint and check.status != "pass":
            line += f"\n{indent}{hint_label}: {check.hint}"
        lines.append(line)
    return lines
