"""What the operator points at: one immutable value the dashboard hands out.

The dashboard screen is the only owner of the cluster in focus and the recipe under the
cursor; :attr:`DashboardScreen.selection <sparktui.tui.screens.dashboard.DashboardScreen.selection>`
assembles a :class:`Selection` from them (and from the cursors and the last health) at
the moment it is read, so an action never sees a copy that fell out of step. Actions and
controllers read it; none of them reads a pane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparktui.engine.api import ClusterHealth
    from sparktui.tui.viewmodel.recipes import RecipeEntry


@dataclass(frozen=True)
class Selection:
    cluster: str = ""
    """The cluster in focus: the panes show it, the read workers follow it."""
    recipe: RecipeEntry | None = None
    """The recipe under the recipes pane's cursor."""
    node: str | None = None
    """The node under a cursor: the cluster tree's line when the tree has the focus (and
    the line is a node of the cluster in focus), else the nodes table's row."""
    cursor_cluster: str = ""
    """The cluster of the cluster tree's cursor line (else the cluster in focus): what
    the power actions act on."""
    health: ClusterHealth | None = None
    """The last health check of the cluster in focus (None: none yet)."""
    cluster_names: tuple[str, ...] = ()
    """Every cluster of the config, in its order."""
