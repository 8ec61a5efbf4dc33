"""supervise: keep a recipe's group alive in the foreground, on the head, or end it."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time

from sparktui.cli.context import config_from, recipe_from, recipes_dir_from, with_engine
from sparktui.cli.output import print_json_line, print_progress
from sparktui.config.toml_source import read_text
from sparktui.engine.api import (
    ClusterControl,
    Happening,
    Progress,
    SuperviseEvent,
    SuperviseResult,
)
from sparktui.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, SparkError
from sparktui.i18n import _
from sparktui.plan.after_stop import after_stop_loader
from sparktui.plan.anywhere import replan_for
from sparktui.plan.build import build_plan
from sparktui.plan.cluster import pick_cluster
from sparktui.plan.router import sharing
from sparktui.present.supervision import ending_lines, event_line, restart_line, status_line
from sparktui.resources import supervisor_dockerfile
from sparktui.said import text_json
from sparktui.scrub import mask_data, scrub
from sparktui.visible import visible

QUIET = frozenset({Happening.STEP})


def print_event(event: SuperviseEvent) -> None:
    """One line per event; a give-up also prints the failed node's last lines."""
    if event.kind in QUIET:
        if event.progress is not None:
            print_progress(event.progress)
        return
    alert = event.kind in (Happening.GAVE_UP, Happening.REFUSED, Happening.LOST)
    stream = sys.stderr if alert else sys.stdout
    print(scrub(event_line(event, time.time())), file=stream, flush=True)
    for text in event.lines:
        print(scrub("    " + visible(text)), file=stream, flush=True)


def json_event(event: SuperviseEvent) -> None:
    """``--json``: every event one line, a restart's steps too (codes and values)."""
    print_json_line(event.as_json())


def json_progress(event: Progress) -> None:
    print_json_line(event.as_json())


EXIT = {"disarmed": EXIT_OK, "interrupted": EXIT_OK, "refused": EXIT_REFUSED,
        "gave_up": EXIT_FAILED, "lost": EXIT_FAILED, "failed": EXIT_FAILED}


def run_supervise(args: argparse.Namespace) -> int:
    if args.dockerfile:
        sys.stdout.write(read_text(supervisor_dockerfile()))
        return EXIT_OK
    loaded = config_from(args)
    if args.end:
        return _end(args, loaded.config)
    if not args.recipe:
        print(_("supervise needs a recipe (or --end)"), file=sys.stderr)
        return EXIT_BAD_INPUT
    recipe = recipe_from(args, args.recipe)
    plan = sharing(build_plan(loaded, recipe, args.cluster), args.share_model)
    if not plan.nodes:
        print(_("{recipe} runs no engine: there is no group to supervise").format(
            recipe=plan.recipe), file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.on_node:
        if any(n.local for n in loaded.config.cluster(plan.cluster).nodes):
            # Bad input, checked before any node is asked: no container runs on this machine.
            print(_("a cluster with a local node cannot run its supervisor on a node"),
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        return _on_node(args, loaded.config, plan, recipe.source.path)

    def skipped(name: str, exc: SparkError) -> None:
        print(_("after_stop of {recipe} skipped: {error}").format(
            recipe=name, error=exc.render()), file=sys.stderr)

    hooks_for = after_stop_loader(recipes_dir_from(args), skipped)

    async def go(engine: ClusterControl) -> SuperviseResult:
        task = asyncio.current_task()
        if task is not None:  # docker stop, systemd, kill: end like Ctrl+C does
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await engine.supervise(plan, json_event if args.json else print_event,
                                      interval=args.interval, hooks_for=hooks_for,
                                      mode=args.mode, replan=replan_for(loaded, recipe, plan))

    try:
        result = with_engine(loaded.config, go)
    except (KeyboardInterrupt, asyncio.CancelledError):
        if args.json:  # the last line is a result, as it is when supervision ends itself
            print_json_line(SuperviseResult("interrupted").as_json())
        else:
            print(_("supervisor ended"), flush=True)  # its last event said how the group is
        return EXIT_OK
    if args.json:
        print_json_line(result.as_json())
    if result.outcome == "failed":
        print(_("cannot supervise: {detail}").format(detail=result.detail), file=sys.stderr)
    return EXIT[result.outcome]


def _on_node(args: argparse.Namespace, config, plan, recipe_path) -> int:
    text = recipe_path.read_text(encoding="utf-8") if recipe_path is not None else ""

    async def go(engine: ClusterControl):
        return await engine.supervise_on_node(
            plan, text, json_progress if args.json else print_progress,
            interval=args.interval)

    installed = with_engine(config, go)
    if args.json:
        print_json_line({"result": "installed" if installed.ok else
                         "refused" if installed.holder is not None else "failed",
                         "node": installed.node, "container": installed.container or None,
                         "detail": text_json(installed.detail) if installed.detail else None,
                         "holder": installed.holder.as_dict() if installed.holder else None})
    if installed.holder is not None:
        return EXIT_REFUSED
    if not installed.ok:
        return EXIT_FAILED
    if args.json:
        return EXIT_OK
    print(_("the supervisor of {recipe} runs on {node} ({container}); `sparktui health` "
            "shows it, `sparktui stop` or `sparktui supervise --end` removes it").format(
        recipe=plan.recipe, node=installed.node, container=installed.container))
    return EXIT_OK


def _end(args: argparse.Namespace, config) -> int:
    cluster = pick_cluster(config, args.cluster)

    steps: list[Progress] = []

    async def go(engine: ClusterControl):
        return await engine.end_supervision(cluster.name,
                                            steps.append if args.json else print_progress,
                                            recipe=args.recipe)

    ending = with_engine(config, go)
    if args.json:  # one document: what the end did, its steps in it
        print(json.dumps(mask_data({**ending.as_dict(),
                                    "steps": [p.as_json() for p in steps]}), indent=2))
    else:
        for line in ending_lines(ending):
            print(scrub(line))
    return EXIT_FAILED if ending.missed else EXIT_OK


def print_supervision(status, now: float, restarts: int = 5, *, history: bool = True) -> None:
    """``health``'s lines: the state, then the last restarts. ``history`` False (before a
    stop, power or restart): only supervision that is, or alerts, now."""
    if status is None or not (history or status.current):
        return
    line = status_line(status, now)
    if line is None:
        return
    print("  " + line)
    record = status.record
    if record is None:
        return
    for event in record.restarts[-restarts:]:
        print("    " + restart_line(event))
    if status.state == "gave_up" and record.last_lines:
        print("    " + _("last lines of {node}:").format(node=visible(record.last_lines_node
                                                                   or "-")))
        for text in record.last_lines[-10:]:
            print("      " + visible(text))
