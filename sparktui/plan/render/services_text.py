"""The services part of the text plan: a node map (who runs what) and one block per service.

Separate from ``text.py`` so a plan without services reads exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparktui.i18n import _
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render.argv import launch_lines
from sparktui.plan.service_model import MetricsEndpoint, Readiness, ServicePlan


@dataclass
class _Row:
    rank: int
    name: str
    role: str
    ssh: str
    fabric: str
    services: list[str] = field(default_factory=list)


def _ssh(ip: str, port: int, local: bool) -> str:
    if local:
        return _("local")
    return ip if port == 22 else f"{ip}:{port}"


def node_map(plan: LaunchPlan) -> list[str]:
    """Every node that takes part, by rank: engine role or pool, and its services."""
    rows: dict[str, _Row] = {}
    for node in plan.nodes:
        rows[node.name] = _Row(node.rank, node.name, _("head") if node.is_head else _("worker"),
                               _ssh(node.ssh_ip, node.ssh_port, node.local), node.ib_ip)
    for service in plan.services:
        for inst in service.instances:
            row = rows.get(inst.node)
            if row is None:
                row = rows[inst.node] = _Row(inst.rank, inst.node, "",
                                             _ssh(inst.ssh_ip, inst.ssh_port, inst.local),
                                             inst.ib_ip)
            if not row.role and service.owns_pool:
                row.role = _("pool {name}").format(name=service.pool)
            row.services.append(service.name)
    for row in rows.values():
        if not row.role:
            dedicated = any(s.placement == "dedicated" and row.name in s.nodes
                            for s in plan.services)
            row.role = _("dedicated") if dedicated else _("services")
    table = [[_("rank"), _("node"), _("role"), _("ssh"), _("fabric"), _("services")]]
    table += [[str(r.rank), r.name, r.role, r.ssh, r.fabric, ", ".join(r.services) or "-"]
              for r in sorted(rows.values(), key=lambda r: r.rank)]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in table]


def readiness_text(ready: Readiness) -> str:
    seconds = f"{ready.timeout:g}s"
    if ready.kind == "tcp":
        return _("tcp :{port} within {seconds}").format(port=ready.port, seconds=seconds)
    if ready.kind == "http":
        return _("http :{port}{path} within {seconds}").format(port=ready.port, path=ready.path,
                                                               seconds=seconds)
    if ready.kind == "log":
        return _("log /{pattern}/ within {seconds}").format(pattern=ready.pattern,
                                                            seconds=seconds)
    return _("none (started is ready)")


def _metrics_text(endpoint: MetricsEndpoint) -> str:
    return _("{name} :{port}{path} on {nodes}").format(
        name=endpoint.name, port=endpoint.port, path=endpoint.path,
        nodes=", ".join(endpoint.nodes))


def services_section(plan: LaunchPlan) -> list[str]:
    lines = [_("Services:")]
    for service in plan.services:
        lines.append(f"  {service.name} ({service.type}) " + _("on {nodes}").format(
            nodes=", ".join(service.nodes)))
        traits = [_("start: {phase}").format(phase=service.start)]
        if service.critical:
            traits.append(_("critical"))
        if service.terminal:
            traits.append(_("terminal: the run ends when every instance has exited"))
        lines.append("    " + ", ".join(traits))
        if service.pool is not None:
            key = _("owns pool {name}") if service.owns_pool else _("rides on pool {name}")
            lines.append("    " + key.format(name=service.pool))
        lines.append("    " + _("readiness: {probe}").format(
            probe=readiness_text(service.readiness)))
        for endpoint in service.metrics:
            lines.append("    " + _("metrics: {target}").format(target=_metrics_text(endpoint)))
        if service.implied_by:
            lines.append("    " + _("implied by: {reason}").format(reason=service.implied_by))
    return lines


def instance_sections(service: ServicePlan) -> list[str]:
    out: list[str] = []
    for inst in service.instances:
        out.append("")
        out.append("== " + _("service {name} #{index} on {node}").format(
            name=service.name, index=inst.index, node=inst.node) + " ==")
        if inst.env:
            out.append("  " + _("env:"))
            out += [f"    {key}={value}" for key, value in inst.env.items()]
        out.append("  " + _("launch:"))
        out += launch_lines(inst.launch)
    return out
