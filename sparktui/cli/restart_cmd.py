"""restart: stop a recipe's whole group, then serve the same plan, behind stop's
health-first confirmation."""

from __future__ import annotations

import argparse
import sys

from sparktui.cli.cluster_cmds import _hooks_for, confirmed, print_health, print_stopped
from sparktui.cli.context import config_from, recipe_from, with_engine
from sparktui.cli.output import print_progress
from sparktui.cli.service_output import serve_failed_line, served_line
from sparktui.engine.api import ClusterControl, RestartSaid, restart_refusal
from sparktui.errors import EXIT_FAILED, EXIT_OK, EXIT_REFUSED
from sparktui.i18n import _
from sparktui.plan.anywhere import replan_for
from sparktui.plan.build import build_plan
from sparktui.plan.router import sharing


def confirm_restart(cluster: str, recipe: str) -> bool:
    try:
        return input(_("Type the cluster name '{cluster}' to restart {recipe} on it: ").format(
            cluster=cluster, recipe=recipe)).strip() == cluster
    except EOFError:
        return False


def run_restart(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    recipe = recipe_from(args, args.recipe)
    plan = sharing(build_plan(loaded, recipe, args.cluster), args.share_model)

    async def go(engine: ClusterControl) -> int:
        health = await engine.health(plan.cluster)
        print_health(health)
        refusal = restart_refusal(health, plan)  # the dashboard's R asks the same
        if refusal is not None and refusal.code is RestartSaid.NOTHING_RUNS:
            print(refusal)  # not an error: serve starts it
            return EXIT_OK
        if refusal is not None:  # its serve after the stop would be refused
            print(refusal, file=sys.stderr)
            return EXIT_REFUSED
        if not args.yes and not confirmed(
                lambda: confirm_restart(plan.cluster, plan.recipe),
                _("refusing to restart without confirmation: pass --yes or run on a terminal"),
                _("cancelled; nothing was restarted")):
            return EXIT_REFUSED
        done = await engine.restart(plan, print_progress, hooks_for=_hooks_for(args),
                                    replan=replan_for(loaded, recipe, plan))
        if not done.stopped.ok:
            print_stopped(plan.cluster, done.stopped)
            print(_("restart of {recipe} ends here: the stop failed, nothing was served").format(
                recipe=plan.recipe), file=sys.stderr)
            return EXIT_FAILED
        served = done.served
        assert served is not None
        if not served.ok:
            print(serve_failed_line(served), file=sys.stderr)
            print(_("{recipe} is DOWN on {cluster}: it was stopped and did not come back; "
                    "serve it again once the cause is fixed").format(
                recipe=plan.recipe, cluster=plan.cluster), file=sys.stderr)
            return EXIT_FAILED
        print(served_line(served.served or plan, served))
        return EXIT_OK

    return with_engine(loaded.config, go)
