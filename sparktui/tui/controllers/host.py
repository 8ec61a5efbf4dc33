"""What a controller sees of the app, and of the dashboard's recipe list: two Protocols.

Controllers never hold the app, a screen's panes or the engine: they get a :class:`Host`
(the app implements it), read the :class:`~sparktui.tui.viewmodel.selection.Selection`
it hands out, and ask its safety gate (:meth:`Host.control`) for the engine before
anything that changes a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from sparktui.engine.api import ClusterControl, ClusterHealth
    from sparktui.tui.actions import Action, Now
    from sparktui.tui.session import Session
    from sparktui.tui.viewmodel.recipes import RecipeEntry
    from sparktui.tui.viewmodel.selection import Selection


class Host(Protocol):
    """All a controller may do with the app."""

    @property
    def session(self) -> Session:
        """The config, the recipes folder, the options (and the engine, for the gate)."""
        ...

    @property
    def selection(self) -> Selection:
        """What the operator points at now."""
        ...

    def now(self) -> Now:
        """What the commands' rules judge: the selection and the selected recipe's plan."""
        ...

    def control(self, action: Action) -> ClusterControl | None:
        """The safety gate: the engine to change a cluster with, or None (refused, in
        ``--watch`` or without an engine; the operator was told why)."""
        ...

    async def fresh_health(self, cluster: str) -> ClusterHealth:
        """A new health check (never the last one shown); the dashboard shows it too."""
        ...

    def notify(self, message: str, *, title: str = "",
               severity: SeverityLevel = "information", timeout: float | None = None,
               markup: bool = True) -> None: ...

    def push_screen(self, screen: Screen[Any],
                    callback: Callable[[Any], None] | None = None) -> Any: ...

    def is_shown(self, screen: Screen[Any]) -> bool:
        """Whether ``screen`` is on the screen stack (not closed yet)."""
        ...

    def run_worker(self, work: Coroutine[Any, Any, Any], *, group: str = "default",
                   exit_on_error: bool = True) -> Any: ...

    def post_message(self, message: Message) -> bool:
        """To the app: an action's progress and its end come back this way."""
        ...

    def suspend(self) -> AbstractContextManager[None]:
        """Hand the terminal to a program (tmux, ``$EDITOR``) until it exits."""
        ...

    def refresh_bindings(self) -> None:
        """An action started or ended: the keys it enables change."""
        ...

    def refresh_now(self) -> None:
        """A health check of the cluster in focus now."""
        ...


class RecipeShelf(Protocol):
    """What the recipe edit flows see of the dashboard: its recipe list."""

    def reload_recipes(self) -> None: ...

    def recipe_entry(self, name: str) -> RecipeEntry | None: ...

    def select_recipe(self, name: str) -> None: ...
