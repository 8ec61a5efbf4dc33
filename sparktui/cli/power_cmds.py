"""power on | off | switch: Home Assistant entities, guarded by SSH and a typed confirmation.

off and switch first show a fresh health check of the clusters involved; every action
then needs the cluster's name typed on a terminal, or ``--yes`` headless (otherwise
exit 3, nothing done). Exit 1 lists what was done and what was not.
"""

from __future__ import annotations

import argparse
import sys

from sparktui.cli.cluster_cmds import print_health
from sparktui.cli.context import config_from, with_engine
from sparktui.cli.output import state_word
from sparktui.cli.power_help import how_to_configure
from sparktui.config.loaded import LoadedConfig
from sparktui.engine.api import ActionResult, ClusterControl, Progress
from sparktui.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, Problem
from sparktui.i18n import _
from sparktui.labels import outcome_line, step_label
from sparktui.plan.cluster import pick_cluster
from sparktui.plan.power import PowerPlan, plan_off, plan_on, plan_switch
from sparktui.scrub import scrub


def run_power(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    config = loaded.config
    if config.home_assistant is None:
        _explain_missing(loaded)
        return EXIT_BAD_INPUT
    if args.power_action == "switch":
        source = pick_cluster(config, args.source).name
        target = pick_cluster(config, args.target).name
        plan = plan_switch(config, source, target)
    elif args.power_action == "off":
        plan = plan_off(config, pick_cluster(config, args.cluster).name)
    else:
        plan = plan_on(config, pick_cluster(config, args.cluster).name)
    result = with_engine(config, lambda engine: _checked_run(args, loaded, plan, engine))
    if result is None:
        return EXIT_REFUSED
    print_outcomes(result)
    return EXIT_OK if result.ok else EXIT_FAILED


def _explain_missing(loaded: LoadedConfig) -> None:
    print(Problem("no_home_assistant", file=loaded.source.path).render(), file=sys.stderr)
    if loaded.builtin:
        print(_("(no config file was found: pass --config FILE or create "
                "~/.config/sparktui/config.toml)"), file=sys.stderr)
    print(how_to_configure(), file=sys.stderr, end="")


async def _checked_run(args: argparse.Namespace, loaded: LoadedConfig, plan: PowerPlan,
                       engine: ClusterControl) -> ActionResult | None:
    """Health first, then the typed confirmation, then the plan (None: refused)."""
    serving = False
    if plan.action != "on":
        for name in dict.fromkeys(c for c in (plan.source, plan.target) if c):
            health = await engine.health(name)
            print_health(health)
            serving = serving or (name == plan.source and health.serving)
    title = {"off": _("power off {cluster}"), "on": _("power on {cluster}"),
             "switch": _("power switch {cluster} -> {target}")}[plan.action]
    print(title.format(cluster=plan.confirm_name, target=plan.target) + ":")
    for line in plan.lines(loaded.config):
        print("  " + line)
    if not _confirmed(args, plan, serving):
        return None
    return await engine.power(plan, print_power_progress)


def _confirmed(args: argparse.Namespace, plan: PowerPlan, serving: bool) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        print(_("refusing to run {command} without confirmation: pass --yes or run on a "
                "terminal; nothing was done").format(command=f"power {plan.action}"),
              file=sys.stderr)
        return False
    name = plan.confirm_name
    if serving:
        print("\n!!! " + _("{cluster} is SERVING: powering it off ends what it serves").format(
            cluster=name) + " !!!\n")
    prompt = {
        "off": _("Type the cluster name '{cluster}' to power it off: "),
        "on": _("Type the cluster name '{cluster}' to power it on: "),
        "switch": _("Type the cluster name '{cluster}' to power it off and switch to "
                    "'{target}': "),
    }[plan.action]
    try:
        answer = input(prompt.format(cluster=name, target=plan.target))
    except EOFError:
        answer = ""
    if answer.strip() != name:
        print(_("cancelled; nothing was done"), file=sys.stderr)
        return False
    return True


def print_power_progress(event: Progress) -> None:
    who = event.node or event.entity or "-"
    state = state_word(event.state)
    detail = f"  {event.detail}" if event.detail else ""
    stream = sys.stderr if event.state == "failed" else sys.stdout
    print(scrub(f"{who:<14} {step_label(event.step):<10} {state:<6}{detail}"), file=stream,
          flush=True)


def print_outcomes(result: ActionResult) -> None:
    if result.done:
        print(_("done:"))
        for o in result.done:
            print("  " + scrub(outcome_line(o)))
    if result.not_done:
        print(_("not done:"), file=sys.stderr)
        for o in result.not_done:
            print("  " + scrub(outcome_line(o)), file=sys.stderr)
    if result.ok:
        print(_("power: everything was done"))
    elif not result.done:
        print(scrub(_("power: nothing was done ({detail})").format(detail=result.detail)),
              file=sys.stderr)
    else:
        print(_("power: partly done; see 'not done' above"), file=sys.stderr)


__all__ = ["print_outcomes", "print_power_progress", "run_power"]
