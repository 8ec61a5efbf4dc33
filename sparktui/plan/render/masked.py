"""A plan as it may be shown: every secret masked by sparktui's one rule (``sparktui.scrub``).

The plan itself keeps the real values (serve runs it); what ``plan -f text`` and
``-f json`` print, and the dashboard's plan screen, is this masked copy: env values
named like secrets, ``-e HF_TOKEN=…`` and ``--api-key X`` in every launch argv, URL
passwords and the same fields inside hook commands, ``sh -c`` scripts and labels, by
position and whatever their length; then each value so found wherever else it shows.
"""

from __future__ import annotations

from dataclasses import replace

from sparktui.plan.model import HookStep, LaunchPlan
from sparktui.scrub import MIN_LENGTH, mask_argv, mask_env_map, mask_text


def masked_plan(plan: LaunchPlan) -> tuple[LaunchPlan, set[str]]:
    """The plan with its secrets as stars, and the values masked (of at least
    ``MIN_LENGTH`` characters: the ones to scrub from the rendered text too)."""
    found: set[str] = set()

    def hooks(steps: list[HookStep]) -> list[HookStep]:
        return [replace(s, run=mask_text(s.run, found)) if s.kind == "command" else s
                for s in steps]

    nodes = [replace(n, env=mask_env_map(n.env, found), launch=mask_argv(n.launch, found),
                     before_serve=hooks(n.before_serve), after_stop=hooks(n.after_stop))
             for n in plan.nodes]
    services = [replace(s, instances=[replace(i, env=mask_env_map(i.env, found),
                                              launch=mask_argv(i.launch, found))
                                      for i in s.instances])
                for s in plan.services]
    router = (None if plan.router is None
              else replace(plan.router, launch=mask_argv(plan.router.launch, found)))
    shown = replace(plan, nodes=nodes, services=services, router=router)
    return shown, {s for s in found if len(s) >= MIN_LENGTH}
