"""serve, stop, health, logs: the commands that act on or watch a whole cluster."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import AsyncGenerator, Callable
from typing import Any

from sparktui.cli.context import config_from, recipe_from, recipes_dir_from, with_engine
from sparktui.cli.output import figure, print_json_line, print_progress, yes_no
from sparktui.cli.service_output import print_services, serve_failed_line, served_line
from sparktui.cli.supervise_cmd import print_supervision
from sparktui.cli.telemetry_cmds import health_telemetry, print_deep
from sparktui.config.discovery import list_recipes
from sparktui.engine.api import (
    ActionResult,
    ClusterControl,
    ClusterHealth,
    DeepCheck,
    Progress,
    SlurmSaid,
    Step,
    TelemetryFrame,
    Workload,
    nothing_runs,
    pull_would_fix,
)
from sparktui.errors import (
    EXIT_BAD_INPUT,
    EXIT_DOES_NOT_FIT,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REFUSED,
    SparkError,
    fail,
)
from sparktui.fmt import format_ms
from sparktui.i18n import _
from sparktui.labels import failed_where
from sparktui.plan.after_stop import HooksFor, after_stop_loader
from sparktui.plan.anywhere import replan_for
from sparktui.plan.build import build_plan
from sparktui.plan.cluster import pick_cluster
from sparktui.plan.model import LaunchPlan
from sparktui.plan.render import render
from sparktui.plan.router import sharing
from sparktui.plan.runtime import runtime_for
from sparktui.present.slurm import slurm_lines
from sparktui.said import Said, text_json
from sparktui.scrub import scrub
from sparktui.visible import visible


def run_serve(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    recipe = recipe_from(args, args.recipe)
    plan = sharing(build_plan(loaded, recipe, args.cluster), args.share_model)
    if args.dry_run:
        sys.stdout.write(render(plan, "text"))
        return EXIT_OK

    events: list[Progress] = []

    def progress(event: Progress) -> None:
        events.append(event)
        if args.json:
            print_json_line(event.as_json())
        else:
            print_progress(event)

    async def go(engine: ClusterControl) -> int:
        result = await engine.serve(plan, progress, keep_on_failure=args.keep_on_failure,
                                    force=args.force, replan=replan_for(loaded, recipe, plan))
        served = result.served or plan  # on a Slurm cluster's any N nodes: the job's
        print_left(served, events)
        if args.json:
            print_json_line(serve_result(served, result))
        if result.ok:
            if not args.json:
                print(served_line(served, result))
            return EXIT_OK if result.exit_code is None else result.exit_code
        print(serve_failed_line(result), file=sys.stderr)
        if pull_would_fix(result):
            print(_("sparktui pull {recipe} --cluster {cluster} puts the image and the model on "
                    "every node that lacks them").format(recipe=shlex.quote(plan.recipe),
                                                         cluster=shlex.quote(plan.cluster)),
                  file=sys.stderr)
        if result.failed_step == Step.ROUTER:  # a model name served already: nothing started
            return EXIT_REFUSED
        return EXIT_DOES_NOT_FIT if result.failed_step in (Step.FIT, Step.SHARES) else EXIT_FAILED

    try:
        return with_engine(loaded.config, go)
    except KeyboardInterrupt:
        print_left(plan, events)  # the rollback ran (or a second Ctrl+C ended it)
        raise


def serve_result(plan: LaunchPlan, result: ActionResult) -> dict[str, Any]:
    """``serve --json``'s last line: the codes and values of how it went."""
    return {"result": "served" if result.ok else "failed", "recipe": plan.recipe,
            "cluster": plan.cluster,
            "url": f"http://{plan.head.ssh_ip}:{plan.port}/v1" if plan.nodes and result.ok
            else None, "exit_code": result.exit_code, "failed_node": result.failed_node,
            "failed_step": result.failed_step,
            "detail": text_json(result.detail) if result.detail else None}


def print_left(plan: LaunchPlan, events: list[Progress]) -> None:
    """Every workload the serve left running, and the commands that stop it: never a
    silent exit over containers still up."""
    left = [e for e in events if e.step == Step.LEFT]
    if not left:
        return
    print(_("left running on the cluster; stop it with: {command}").format(
        command=shlex.join(["sparktui", "stop", "--cluster", plan.cluster, "--recipe",
                            plan.recipe])), file=sys.stderr)
    runtimes = {i.container: s.runtime for s in plan.services for i in s.instances}
    for e in left:
        if isinstance(e.detail, Said) and e.detail.code is SlurmSaid.LEFT:  # a whole job
            job = str(e.detail.params["job"])
            print("  " + _("{job} submitted from {host} (cancel it there: {command})").format(
                job=e.detail, host=e.node, command=shlex.join(
                    ["scancel", "--batch", "--signal=TERM", job])), file=sys.stderr)
            continue
        workload = str(e.detail)  # a left step names the workload
        removal = runtime_for(runtimes.get(workload, plan.runtime)).removal(workload, 0)
        print(scrub("  " + _("{workload} on {node} (on the node: {command})").format(
            workload=workload, node=e.node, command=removal.remove)), file=sys.stderr)


def cluster_state(health: ClusterHealth) -> str:
    """``serving``, else ``not serving`` only when every node said what it runs and every
    head's API answered: a node that did not answer, or whose docker did not, may be
    serving (issue 29), and so may a head too busy to answer in time."""
    if health.serving:
        return _("serving")
    if health.unknown is None and health.unread:
        return _("unknown: the API on {nodes} did not answer in time").format(
            nodes=", ".join(health.unread))
    return str(health.unknown or _("not serving"))


def print_health(health: ClusterHealth, *, history: bool = False) -> None:
    """``history``: an ended supervision too (``health``); before an action, only one that
    is, or alerts, now."""
    state = cluster_state(health)
    print(_("cluster {cluster}: {state}").format(cluster=health.cluster, state=state))
    print_supervision(health.supervision, health.checked_at, history=history)
    for line in slurm_lines(health.slurm) if health.slurm is not None else []:
        print("  " + line)
    if health.router is not None:
        r = health.router
        print("  " + _("router {address} on {node}: {state}; models {models}").format(
            address=r.address, node=r.node, state=r.state, models=", ".join(r.models) or "-")
              + (f"; {r.error}" if r.error else ""))
    several = len(health.engines) > 1
    for row, e in ((r, e) for r in health.nodes for e in r.engines):
        where = f"{row.node} {e.recipe}:{e.port}" if several and e.recipe else row.node
        print("  " + _("{node}: models {models}; running {running}, waiting {waiting}, "
                       "KV cache {kv}; /health {alive}").format(
            node=where, models=", ".join(map(visible, e.models)) or "-", running=figure(e.running),
            waiting=figure(e.waiting), kv=figure(e.kv_cache, percent=True),
            alive=yes_no(e.health_ok)) + (f"; {e.error}" if e.error else "")
              + ("; " + _("no engine metrics (/metrics does not answer)")
                 if e.metrics_ok is False and e.ready else ""))
    for row in health.nodes:
        if not row.reachable:
            print(f"  {row.node:<12} {row.error}")  # its reason first: said once
            continue
        latency = format_ms(row.latency_ms) if row.latency_ms is not None else "-"
        if row.docker_error is not None:
            print(f"  {row.node:<12} {latency:>7}  {_('docker unreachable')}: {row.docker_error}")
        elif not row.workloads:
            print(f"  {row.node:<12} {latency:>7}  {_('idle')}")
        for w in row.workloads:
            name, recipe, role, status = map(visible, (w.name, w.recipe, w.role, str(w.status)))
            print(f"  {row.node:<12} {latency:>7}  {name} ({recipe}, {role}) {status}"
                  f"  {_('restarts')} {w.restarts}"
                  + ("  " + _("foreign: {why}").format(why=w.foreign) if w.foreign else ""))
    print_services(health)


def run_health(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)

    async def check(engine: ClusterControl) -> tuple[ClusterHealth, TelemetryFrame | None,
                                                    DeepCheck | None]:
        health = await engine.health(cluster.name)
        if not (args.json or args.deep):
            return health, None, None
        return health, *await health_telemetry(engine, cluster.name, args.deep,
                                               loaded.config.telemetry_interval_seconds)

    health, frame, deep = with_engine(loaded.config, check)
    if args.json:
        extra: dict[str, Any] = {"telemetry": frame.as_dict()} if frame is not None else {}
        if args.deep:
            extra["deep"] = deep.as_dict() if deep is not None else None
        print(json.dumps({**health.as_dict(), **extra}, indent=2))
    else:
        print_health(health, history=True)
        if args.deep:
            print_deep(deep)
    # Nothing serving is an answer, not a failure: the deep check has nothing to ask
    # (health itself fails when a node could not say what it runs).
    deep_ok = not args.deep or deep is None or deep.ok
    return EXIT_OK if health.all_known and deep_ok else EXIT_FAILED


def _hooks_for(args: argparse.Namespace) -> HooksFor:
    def skipped(name: str, exc: SparkError) -> None:
        print(_("after_stop of {recipe} skipped: {error}").format(
            recipe=name, error=exc.render()), file=sys.stderr)

    return after_stop_loader(recipes_dir_from(args), skipped)


def confirmed(ask: Callable[[], bool], refusing: str, cancelled: str) -> bool:
    """A change to a live cluster goes on only when a person said so: refused without a
    terminal (``refusing``), else ``ask`` (``cancelled`` when the answer is no)."""
    if not sys.stdin.isatty():
        print(refusing, file=sys.stderr)
        return False
    if not ask():
        print(cancelled, file=sys.stderr)
        return False
    return True


def confirm_typed(cluster: str, serving: bool) -> bool:
    prompt = (_("The cluster is SERVING. Type the cluster name '{cluster}' to stop it: ")
              if serving else _("Type the cluster name '{cluster}' to stop it: "))
    try:
        return input(prompt.format(cluster=cluster)).strip() == cluster
    except EOFError:
        return False


def run_stop(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)

    async def go(engine: ClusterControl) -> int:
        health = await engine.health(cluster.name)
        print_health(health)
        if args.recipe is not None and not known_recipe(args, health, args.recipe):
            return EXIT_BAD_INPUT  # before any mark is written or anything stopped
        if nothing_runs(health, args.recipe):
            print(_("nothing runs on {where}: nothing to stop").format(
                where=_where(cluster.name, args.recipe)))
            return EXIT_OK
        if not args.yes and not confirmed(
                lambda: confirm_typed(cluster.name, health.serving),
                _("refusing to stop without confirmation: pass --yes or run on a terminal"),
                _("cancelled; nothing was stopped")):
            return EXIT_REFUSED
        result = await engine.stop(cluster.name, progress, recipe=args.recipe,
                                   hooks_for=_hooks_for(args))
        print_stopped(cluster.name, result)
        return EXIT_OK if result.ok else EXIT_FAILED

    events: list[Progress] = []

    def progress(event: Progress) -> None:
        events.append(event)
        print_progress(event)

    try:
        return with_engine(loaded.config, go)
    except KeyboardInterrupt:  # what the stop had not removed yet is still there: said
        left = [e for e in events if e.step == Step.LEFT]
        if left:
            print(_("interrupted: still on the cluster; stop it with: {command}").format(
                command=shlex.join(["sparktui", "stop", "--cluster", cluster.name,
                                    *(["--recipe", args.recipe] if args.recipe else [])])),
                file=sys.stderr)
            for e in left:
                print("  " + _("{workload} on {node}").format(workload=visible(str(e.detail)),
                                                              node=e.node), file=sys.stderr)
        raise


def print_stopped(cluster: str, result: ActionResult) -> None:
    """The end of a stop, said once more after the steps: a restore that did not finish
    (after_stop) is never left to scroll by."""
    if not result.ok:
        print(_("stop failed {where}: {detail}").format(
            where=failed_where(result.failed_node, result.failed_step),
            detail=scrub(str(result.detail))), file=sys.stderr)
        return
    restores = [e for e in result.warnings if e.step == Step.AFTER_STOP]
    if not restores:
        print(_("stopped what {cluster} ran").format(cluster=cluster))
        return
    print(_("stopped what {cluster} ran, but after_stop did not finish on {nodes}: restore "
            "them by hand").format(cluster=cluster,
                                   nodes=", ".join(dict.fromkeys(e.node or "-"
                                                                 for e in restores))),
          file=sys.stderr)
    for event in restores:
        print(scrub(f"  {event.node or '-'}: {event.detail}"), file=sys.stderr)


def known_recipe(args: argparse.Namespace, health: ClusterHealth, recipe: str) -> bool:
    """A recipe of the recipes folder, or one that runs on the cluster (its folder may be
    gone): anything else is a typo, refused before a disarm mark is written for it."""
    try:
        folder = list_recipes(recipes_dir_from(args))
    except SparkError:  # no recipes folder: only what runs is known
        folder = {}
    running = {w.recipe for w in health.workloads}
    if recipe in folder or recipe in running:
        return True
    known = ", ".join(sorted({*folder, *running})) or _("none")
    if health.all_known:
        print(_("no recipe {recipe} in {folder}, and none runs on {cluster}: nothing was "
                "stopped (recipes: {known})").format(
            recipe=visible(recipe), folder=recipes_dir_from(args), cluster=health.cluster,
            known=known), file=sys.stderr)
    else:  # a node that did not answer may run it: never "none runs"
        print(_("no recipe {recipe} in {folder}, and what runs on {cluster} is {state}: "
                "nothing was stopped (recipes: {known})").format(
            recipe=visible(recipe), folder=recipes_dir_from(args), cluster=health.cluster,
            state=cluster_state(health), known=known), file=sys.stderr)
    return False


def _where(cluster: str, recipe: str | None) -> str:
    return (_("recipe {recipe} on {cluster}").format(recipe=recipe, cluster=cluster)
            if recipe else cluster)


def run_logs(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)
    if args.node and args.node not in {n.name for n in cluster.nodes}:
        raise fail("node_unknown", cluster=cluster.name, node=args.node,
                   known=[n.name for n in cluster.nodes])
    width = max(len(n.name) for n in cluster.nodes)
    targets: list[Workload] = []
    unseen: list[str] = []  # why nodes could not say what runs on them

    def seen(health: ClusterHealth) -> None:
        unseen.extend(str(n.unanswered) for n in health.nodes
                      if not n.known and args.node in (None, n.node))

    async def follow(engine: ClusterControl) -> None:
        stream = engine.log_batches(cluster.name, node=args.node, recipe=args.recipe,
                                    tail=args.tail, follow=args.follow,
                                    on_targets=targets.extend, on_health=seen)
        gap = "-- " + _("stream interrupted; reconnecting") + " --"
        try:
            async for batch in stream:
                prefix = f"{batch.node:<{width}} | "
                texts = batch.lines if not batch.gap else [
                    *([str(batch.why)] if batch.why is not None else []), gap]
                sys.stdout.write("".join(prefix + text + "\n" for text in texts))
                sys.stdout.flush()
        finally:
            # Closing the generator now stops every node's log follower before the
            # connections close (it is one, though typed as an AsyncIterator).
            if isinstance(stream, AsyncGenerator):
                await stream.aclose()

    try:
        with_engine(loaded.config, follow)
    except KeyboardInterrupt:
        return EXIT_OK  # detaching never stops the container
    if unseen:  # a node that did not answer is not "nothing runs": its logs are unknown
        state = _("unknown: {why}").format(why="; ".join(unseen))
        print((_("not every log was shown: {state}") if targets else
               _("no logs to show: {state}")).format(state=state), file=sys.stderr)
        return EXIT_FAILED
    if not targets:  # never silence: say that there was nothing to show
        where = _where(cluster.name, args.recipe)
        print(_("no sparktui workload runs on {where}: no logs to show").format(
            where=where + (f" ({args.node})" if args.node else "")), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
