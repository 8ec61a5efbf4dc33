"""Human-readable plan, laid out like a dry-run: summary, node map, per-node detail."""

from __future__ import annotations

from sparktui.i18n import _, ngettext
from sparktui.plan.model import HookStep, LaunchPlan, NodePlan
from sparktui.plan.render.argv import launch_lines
from sparktui.plan.render.masked import masked_plan
from sparktui.plan.render.services_text import instance_sections, node_map, services_section
from sparktui.plan.runtime import runtime_for
from sparktui.scrub import scrub


def render_text(plan: LaunchPlan) -> str:
    """The plan for people, its secrets masked (``masked_plan``)."""
    plan, secrets = masked_plan(plan)
    out: list[str] = []
    out.append(_("Plan: recipe {recipe} on cluster {cluster}").format(
        recipe=plan.recipe, cluster=plan.cluster))
    if plan.nodes:
        port = (_("{port} (the Dynamo frontend's; its workers serve no HTTP)").format(
            port=plan.port) if plan.frontend == "dynamo" else plan.port)
        out.append(_("  engine {engine}, runtime {runtime}, port {port}").format(
            engine=plan.engine, runtime=plan.runtime, port=port))
        out.append(_("  model {model}").format(model=plan.model))
        if runtime_for(plan.runtime).runs_image:
            out.append(_("  image {image}").format(image=plan.image))
            if plan.image_digest:
                out.append(_("    resolved to {digest} at its last serve on {cluster}").format(
                    digest=plan.image_digest, cluster=plan.cluster))
    else:
        out.append(_("  services only: no engine"))
    if plan.nodes:
        out.append(_("  start order: {order}").format(order=" -> ".join(plan.start_order)))
    if plan.frontend != "engine":
        out.append(_("  frontend: {frontend}").format(frontend=plan.frontend))
    if plan.router is not None:
        out.append(_("  router: {address} on {node} (SMG; its workers are made again "
                     "from what serves, after each serve and stop)").format(
            address=plan.router.address, node=plan.router.node))
    if plan.slurm is not None and plan.slurm.allocate == "any" and plan.nodes:
        n = len({n.name for n in plan.nodes} | {i.node for s in plan.services
                                                 for i in s.instances})
        out.append(ngettext(
            "  slurm: any {n} of the cluster's nodes, as Slurm gives it: the node below is "
            "the first by rank; a serve resolves the plan on the job's",
            "  slurm: any {n} of the cluster's nodes, as Slurm gives them: the nodes below "
            "are the first by rank; a serve resolves the plan on the job's", n).format(n=n))
    out.append("")
    out.append(_("Nodes:"))
    out += node_map(plan) if plan.services else _table(plan.nodes)
    if plan.services:
        out.append("")
        out += services_section(plan)
    if plan.hf_refs:
        out.append("")
        out.append(_("HF references (resolved on each node at serve time):"))
        for ref in plan.hf_refs:
            target = ref.repo + (f"/{ref.subfolder}" if ref.subfolder else "")
            out.append(f"  {{{{{ref.placeholder}}}}} -> {target} (refs/main)")
    for node in plan.nodes:
        out.append("")
        out += _node(node)
    for service in plan.services:
        out += instance_sections(service)
    if plan.router is not None:
        out.append("")
        out.append(_("Router on {node}:").format(node=plan.router.node))
        out += launch_lines(plan.router.launch)
    return scrub("\n".join(out) + "\n", secrets)


def _table(nodes: list[NodePlan]) -> list[str]:
    rows = [[_("rank"), _("node"), _("role"), _("ssh"), _("fabric")]]
    for node in nodes:
        ssh = node.ssh_ip if node.ssh_port == 22 else f"{node.ssh_ip}:{node.ssh_port}"
        rows.append([str(node.rank), node.name, _("head") if node.is_head else _("worker"),
                     _("local") if node.local else ssh, node.ib_ip])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]


def _hooks(title: str, steps: list[HookStep]) -> list[str]:
    if not steps:
        return []
    lines = [f"  {title}"]
    for step in steps:
        kind = _("script") if step.kind == "script" else _("command")
        lines.append(f"    [{step.origin}] {kind}: {step.run}  ({step.on_failure})")
    return lines


def _node(node: NodePlan) -> list[str]:
    role = _("head") if node.is_head else _("worker")
    lines = [f"== {node.name} ({_('rank')} {node.rank}, {role}) =="]
    lines += _hooks(_("before serve:"), node.before_serve)
    lines.append("  " + _("env:"))
    lines += [f"    {key}={value}" for key, value in node.env.items()]
    if node.mounts:
        lines.append("  " + _("mounts:"))
        lines += [f"    {m.volume}" for m in node.mounts]
    lines.append("  " + _("launch:"))
    lines += launch_lines(node.launch)
    lines += _hooks(_("after stop:"), node.after_stop)
    return lines
