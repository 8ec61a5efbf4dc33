"""Runtimes' listings in one round trip: one shell line, and its output split back.

The first runtime named prints first, unmarked; each other one after its marker line, so
a node that answers with the first's output alone still parses.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.runtime import RUNTIMES, runtime_for
from sparktui.plan.runtime.base import Listing


def _marker(name: str) -> str:
    return f"@@sparktui-{name}@@"


def list_all_command(names: Sequence[RuntimeName] = tuple(RUNTIMES)) -> str:
    """The listing of the runtimes ``names`` (all of them, in ``RUNTIMES`` order); none:
    a line that lists nothing."""
    if not names:
        return "true"
    first, *rest = names
    return "".join([runtime_for(first).list_command(),
                    *(f"; echo {_marker(name)}; {runtime_for(name).list_command()}"
                      for name in rest)])


def parse_list_all(output: str, names: Sequence[RuntimeName] = tuple(RUNTIMES)
                   ) -> dict[RuntimeName, Listing]:
    """Each runtime's listing, in the order of ``names``."""
    if not names:
        return {}
    first, *rest = names
    sections: dict[RuntimeName, str] = {}
    current = first
    for name in rest:
        sections[current], _, output = output.partition(_marker(name))
        current = name
    sections[current] = output
    return {name: runtime_for(name).parse_list(text) for name, text in sections.items()}
