"""A container's ``docker inspect`` (``i``): the summary, labels, env (secrets already
masked by the engine), then the whole of it, in a scrollable modal; Esc or q closes."""

from __future__ import annotations

from rich.text import Text

from sparktui.engine.api import Described
from sparktui.present.container import container_lines
from sparktui.tui.screens.details import DetailsScreen


def inspect_text(described: Described) -> Text:
    """Plain text (no markup is read in it); the section titles bold."""
    text = Text(no_wrap=False)
    for line in container_lines(described):
        bold = bool(line) and not line.startswith((" ", "{", "}", "[", "]"))
        text.append(line + "\n", style="bold" if bold and "  " not in line else "")
    return text


class InspectScreen(DetailsScreen):
    def __init__(self, described: Described) -> None:
        super().__init__(f"{described.name} · {described.node}", inspect_text(described))
        self.described = described
