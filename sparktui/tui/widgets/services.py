"""Services pane: every service of the cluster in focus, one row per instance, with its
state, its readiness and its metrics endpoint, from the last health check."""

from __future__ import annotations

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from sparktui.engine.api import ClusterHealth, MetricsStatus, ServiceStatus
from sparktui.i18n import _, ngettext
from sparktui.labels import container_state
from sparktui.tui.widgets.paint import show

STATE_STYLES = {"ready": "green", "running": "green", "starting": "yellow",
                "partial": "yellow", "created": "yellow", "restarting": "yellow",
                "exited": "dim", "failed": "bold red", "dead": "bold red"}
# Headline figures worth a glance: label and format.
FIGURES = {
    "DCGM_FI_DEV_GPU_UTIL": ("GPU", "{:.0f}%"),
    "DCGM_FI_DEV_GPU_TEMP": ("", "{:.0f}°C"),
    "DCGM_FI_DEV_POWER_USAGE": ("", "{:.0f} W"),
    "node_load1": ("load", "{:.2f}"),
    "node_memory_MemAvailable_bytes": ("free", "{:.0f} GiB"),
    "etcd_server_has_leader": ("leader", "{:.0f}"),
}


def _figure(name: str, value: float) -> str:
    label, fmt = FIGURES.get(name, (name, "{:g}"))
    if name.endswith("_bytes"):
        value = value / (1 << 30)
    text = fmt.format(value)
    return f"{label} {text}" if label else text


def metrics_cell(scrapes: list[MetricsStatus]) -> Text:
    cell = Text()
    for m in scrapes:
        if cell:
            cell.append("; ")
        if not m.up:
            cell.append(_("{port} down").format(port=m.port), style="red")
            continue
        cell.append(_("{port} up").format(port=m.port), style="green")
        figures = [_figure(k, v) for k, v in m.headline.items()]
        cell.append(" " + (" · ".join(figures) if figures else
                           ngettext("{count} sample", "{count} samples",
                                    m.samples).format(count=m.samples)), style="dim")
    return cell


def _ready_cell(ready: bool | None, probe: str, state: str) -> Text:
    if state != "running":
        return Text("-", style="dim")
    if ready is None:
        return Text(probe or _("no probe"), style="dim")
    word, style = (_("ready"), "green") if ready else (_("waiting"), "yellow")
    return Text.assemble((word, style), (f" {probe}" if probe else "", "dim"))


def _kind(svc: ServiceStatus) -> str:
    """Its pool when it has one (pools are generic work), else its type."""
    return _("pool {name}").format(name=svc.pool) if svc.pool else svc.type


def services_table(services: list[ServiceStatus]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False, show_edge=False,
                  caption=_("* critical · ⏹ terminal: the run ends when it exits"),
                  caption_style="dim", caption_justify="left")
    table.add_column(_("service"), no_wrap=True, overflow="ellipsis", max_width=18)
    table.add_column(_("node"), no_wrap=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column(_("state"), no_wrap=True)
    table.add_column(_("readiness"), no_wrap=True, overflow="ellipsis")
    table.add_column(_("metrics"), ratio=1, no_wrap=True, overflow="ellipsis")
    for svc in services:
        marks = "".join(m for m, on in (("*", svc.critical), ("⏹", svc.terminal)) if on)
        title = Text.assemble((svc.name, "bold " + STATE_STYLES.get(svc.state, "")),
                              (f" {marks}" if marks else "", "cyan"))
        for n, inst in enumerate(svc.instances):
            state = container_state(inst.state, inst.exit_code, zero=True)
            scrapes = [m for m in svc.metrics if m.node == inst.node]
            first = Text(_kind(svc), style="dim") if n == 1 else ""
            table.add_row(
                title if n == 0 else first, Text(inst.node), str(inst.index),
                Text(state, style=STATE_STYLES.get(inst.state, "")),
                _ready_cell(inst.ready, inst.readiness, inst.state),
                metrics_cell(scrapes))
        if len(svc.instances) == 1:
            table.add_row(Text(_kind(svc), style="dim"), "", "", "", "", "")
        table.add_section()
    return table


class ServicesPane(Static):
    can_focus = True

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.health: ClusterHealth | None = None

    def on_mount(self) -> None:
        self.update(self.render_services())

    def show(self, health: ClusterHealth | None) -> None:
        """The last health of the cluster in focus (None: nothing known yet)."""
        self.health = health
        if self.is_mounted:
            show(self, self.render_services())

    def render_services(self) -> RenderableType:
        services = self.health.services if self.health is not None else []
        if not services:
            return Text.assemble(
                (_("No services."), "bold"), "\n",
                (_("Services a recipe needs next to the engine (etcd, a Ray head, a router) "
                   "will be listed here with their state."), "dim"))
        return services_table(services)
