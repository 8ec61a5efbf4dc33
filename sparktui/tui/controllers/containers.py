"""A shell in, and the ``docker inspect`` of, a container on the node under the cursor
(``a`` and ``i``): which container the last health saw there, then the terminal handed to
``docker exec -it`` over ``ssh -t`` (the app suspended, as for tmux) or the inspect read
by a worker and shown in a scrollable view. Inspect only reads: ``--watch`` has it."""

from __future__ import annotations

from textual.app import SuspendNotSupported

from sparktui.engine.api import Workload, containers
from sparktui.i18n import _
from sparktui.tui import workers
from sparktui.tui.actions import Action
from sparktui.tui.controllers.ask import Runs
from sparktui.tui.controllers.host import Host
from sparktui.tui.screens.inspect import InspectScreen


class ContainerFlows:
    def __init__(self, host: Host, flows: Runs) -> None:
        self.host = host
        self.flows = flows

    def _target(self, running: bool) -> tuple[str, str, Workload] | None:
        """(cluster, node, container) under the cursor, or None (the operator is told)."""
        selection = self.host.selection
        cluster, node, health = selection.cluster, selection.node, selection.health
        if not cluster:
            return None
        if node is None or health is None:
            self.host.notify(_("no health check yet: nothing known about the containers"),
                             severity="warning")
            return None
        row = next((n for n in health.nodes if n.node == node), None)
        if row is not None and not row.known:  # its containers are unknown, never "none"
            self.host.notify(_("unknown: {why}").format(why=row.unanswered), severity="error")
            return None
        rows = containers(row.workloads if row else [], cluster, running=running)
        if not rows:
            tmux = row is not None and any(w.can_attach for w in row.workloads)
            self.host.notify((_("no running sparktui container on {node}") if running else
                              _("no sparktui container on {node}")).format(node=node)
                             + (" (" + _("tmux runtime: t attaches") + ")" if tmux else ""),
                             severity="warning")
            return None
        recipe = selection.recipe.name if selection.recipe is not None else None
        return cluster, node, next((w for w in rows if w.recipe == recipe), rows[0])

    def shell(self) -> None:
        """``a``: a shell (bash if present, else sh) in the container; back after."""
        control = self.host.control(Action.SHELL)
        if control is None or (target := self._target(True)) is None:
            return
        cluster, _node, work = target
        argv = control.shell_argv(cluster, work)
        try:
            with self.host.suspend():
                self.flows.run_attached(argv)
        except SuspendNotSupported:
            self.host.notify(_("this terminal cannot hand over to a shell; run: {command}")
                             .format(command=" ".join(argv)), severity="warning")
            return
        self.host.refresh_now()

    def inspect(self) -> None:
        """``i``: the container's ``docker inspect``, secrets masked, in a view."""
        engine = self.host.session.engine
        if engine is None:
            self.host.notify(_("not connected to the cluster"), severity="warning")
            return
        if (target := self._target(False)) is None:
            return
        cluster, node, work = target

        async def go() -> None:
            described = await workers.read_inspect(engine, cluster, node, work.name)
            if isinstance(described, str):
                self.host.notify(described, severity="error")
            else:
                self.host.push_screen(InspectScreen(described))

        self.host.run_worker(go(), group="inspect", exit_on_error=False)
