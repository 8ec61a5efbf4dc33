"""bench: drive the benchmark tool against the serving head, keep the run, show it;
``--list`` and ``--compare`` read the runs kept (docs/bench.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable

from sparktui.cli.context import config_from, recipe_from, with_engine
from sparktui.engine.api import (
    Benched,
    BenchFailed,
    BenchHeard,
    BenchProgress,
    ClusterControl,
    bench_dir,
    find_tool,
    kept,
    kept_runs,
)
from sparktui.errors import EXIT_FAILED, EXIT_OK, SparkError, fail
from sparktui.exitcodes import ExitCode
from sparktui.i18n import _
from sparktui.plan.bench.aiperf import BenchSettings, parse_concurrency
from sparktui.plan.bench.compare import comparison
from sparktui.plan.bench.render import compare_text, list_text, run_text
from sparktui.plan.build import build_plan
from sparktui.plan.cluster import pick_cluster
from sparktui.plan.model import LaunchPlan
from sparktui.said import Text
from sparktui.scrub import scrub
from sparktui.visible import write_control


def settings_from(args: argparse.Namespace) -> BenchSettings:
    try:
        levels = parse_concurrency(args.concurrency)
    except ValueError:
        raise fail("bench_concurrency_invalid", value=args.concurrency) from None
    return BenchSettings(concurrency=levels, input_tokens=args.input_tokens,
                         output_tokens=args.output_tokens, requests=args.requests,
                         tokenizer=args.tokenizer)


class ProgressLine:
    """One line per level on a terminal, rewritten in place; else its start and end."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()

    def __call__(self, p: BenchProgress) -> None:
        text = _("level {level}/{levels}: concurrency {concurrency}, {done}/{total} "
                 "requests").format(level=p.level, levels=p.levels, concurrency=p.concurrency,
                                    done=p.done, total=p.total)
        if p.state == "stopping":
            text += " - " + _("stopping, keeping what was measured")
        if self.tty:
            end = "\n" if p.state in ("done", "stopping") else ""
            write_control(sys.stderr, "\r\033[K")
            print(text, end=end, file=sys.stderr, flush=True)
        elif p.state in ("started", "done", "stopping"):
            print(text, file=sys.stderr, flush=True)


def _plan_of(args: argparse.Namespace, recipe: str, cluster: str) -> LaunchPlan | None:
    """The plan the recipe builds (what the run was launched from); None when the recipe
    is not in the recipes folder any more or no longer builds: the run says so."""
    try:
        return build_plan(config_from(args), recipe_from(args, recipe), cluster)
    except SparkError:
        return None


def run_bench(args: argparse.Namespace) -> int:
    directory = bench_dir()
    if args.list:
        runs, problems = kept_runs(directory)
        for problem in problems:
            print(scrub(problem), file=sys.stderr)
        if args.json:
            print(json.dumps([r.model_dump() for r in runs], indent=2))
        else:
            sys.stdout.write(list_text(runs))
        return EXIT_OK
    if args.compare:
        a, b = kept(directory, args.compare)
        if args.json:
            print(json.dumps(comparison(a, b), indent=2))
        else:
            sys.stdout.write(compare_text(a, b))
        return EXIT_OK
    settings = settings_from(args)
    tool = find_tool()
    loaded = config_from(args)
    cluster = pick_cluster(loaded.config, args.cluster)

    def note(text: Text) -> None:  # a sentence as data: its words here
        print(scrub(str(text)), file=sys.stderr)

    def begin(text: Text) -> None:
        print(scrub(str(text)), file=sys.stderr, flush=True)

    def go(engine: ClusterControl) -> Awaitable[Benched]:
        return engine.bench_recipe(cluster.name, args.recipe, settings, tool,
                                   BenchHeard(note, begin, ProgressLine()), via=args.via,
                                   plan_of=lambda recipe: _plan_of(args, recipe, cluster.name))

    try:
        benched = with_engine(loaded.config, go)
    except BenchFailed as exc:
        print(scrub(_("the benchmark tool failed: {detail}").format(detail=exc)),
              file=sys.stderr)
        return EXIT_FAILED
    run = benched.run
    if args.json:
        print(json.dumps(run.model_dump(), indent=2))
    else:
        sys.stdout.write(run_text(run))
    print(_("kept as {path}").format(path=benched.path), file=sys.stderr)
    return ExitCode.INTERRUPTED if run.interrupted else EXIT_OK
