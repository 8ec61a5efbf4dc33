"""Services pane (etcd, Ray head, ...): an empty state until services arrive."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from sparktui.i18n import _


class ServicesPane(Static):
    def on_mount(self) -> None:
        self.update(Text.assemble(
            (_("No services."), "bold"), "\n",
            (_("Services a recipe needs next to the engine (etcd, a Ray head, a router) "
               "will be listed here with their state."), "dim")))
