"""Services in the CLI's words: the health section and the end of a serve."""

from __future__ import annotations

from sparktui.engine.api import ActionResult, ClusterHealth, MetricsStatus
from sparktui.i18n import _, ngettext
from sparktui.labels import container_state, failed_where
from sparktui.plan.model import LaunchPlan
from sparktui.scrub import scrub


def print_services(health: ClusterHealth) -> None:
    if not health.services:
        return
    print(_("services:"))
    for svc in health.services:
        flags = [f for f, on in ((_("critical"), svc.critical), (_("terminal"), svc.terminal))
                 if on]
        print("  " + _("{name} ({type}, {recipe}): {state}").format(
            name=svc.name, type=svc.type or "-", recipe=svc.recipe, state=svc.state)
              + (f" [{', '.join(flags)}]" if flags else ""))
        for inst in svc.instances:
            ready = {True: _("ready"), False: _("not ready"), None: "-"}[inst.ready]
            state = container_state(inst.state, inst.exit_code, zero=True)
            probe = f" {inst.readiness}" if inst.readiness else ""
            print(f"    {inst.node:<12} #{inst.index} {inst.container}  {state}  {ready}{probe}")
        for m in svc.metrics:
            print("    " + metrics_line(m))


def metrics_line(m: MetricsStatus) -> str:
    where = f"{m.name} {m.node}:{m.port}{m.path}"
    if not m.up:
        return _("metrics {where}: down ({error})").format(where=where, error=m.error or "-")
    figures = ", ".join(f"{k} {v:g}" for k, v in m.headline.items())
    return ngettext("metrics {where}: up, {count} sample", "metrics {where}: up, {count} samples",
                    m.samples).format(where=where, count=m.samples) + (
        f"; {figures}" if figures else "")


def served_line(plan: LaunchPlan, result: ActionResult) -> str:
    """What a successful serve says: the API, the services, or a terminal run's exit."""
    if result.exit_code is not None:
        return _("{recipe} on {cluster}: terminal services exited with code {code}").format(
            recipe=plan.recipe, cluster=plan.cluster, code=result.exit_code)
    if plan.nodes:
        return _("serving {recipe} on {cluster}: http://{host}:{port}/v1").format(
            recipe=plan.recipe, cluster=plan.cluster, host=plan.head.ssh_ip, port=plan.port)
    count = len(plan.services)
    return ngettext("{recipe} on {cluster}: {count} service ready",
                    "{recipe} on {cluster}: {count} services ready", count).format(
        recipe=plan.recipe, cluster=plan.cluster, count=count)


def serve_failed_line(result: ActionResult) -> str:
    """Why a serve failed and where, for ``serve`` and ``restart`` alike: the detail a
    sentence as data until here, its words made now, in the language active; every secret
    masked."""
    return scrub(_("serve failed {where}: {detail}").format(
        where=failed_where(result.failed_node, result.failed_step), detail=result.detail))
