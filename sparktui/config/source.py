"""Where a loaded model came from, so later layers can point at a file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparktui.config.toml_source import KeyLines, Path_
from sparktui.errors import Problem


def dotted(loc: Path_) -> str:
    """``('clusters', 1, 'nodes', 0)`` -> ``clusters[1].nodes[0]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


@dataclass(frozen=True)
class SourceRef:
    path: Path | None
    lines: KeyLines | None = None

    def problem(self, code: str, loc: Path_ = (), **params: Any) -> Problem:
        line = self.lines.find(loc) if self.lines and loc else None
        return Problem(code, params, self.path, line, dotted(loc) or None)
