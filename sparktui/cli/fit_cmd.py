"""fit: the recipe's model against each node's memory, before anything is served.

Exit codes: 0 fits (or tight), 4 does not fit on some node, 5 unknown (the model's
files are on no node and the Hub could not be asked, or its answer was not usable), 1 a
node could not be checked (unreachable, unreadable), 2 bad input.
"""

from __future__ import annotations

import argparse
import json

from sparktui.cli.context import config_from, recipe_from, with_engine
from sparktui.engine.api import ClusterControl
from sparktui.errors import EXIT_DOES_NOT_FIT, EXIT_FAILED, EXIT_FIT_UNKNOWN, EXIT_OK
from sparktui.i18n import _
from sparktui.plan.build import build_plan
from sparktui.plan.fit.calc import ERROR, NO_FIT, UNKNOWN, FitReport
from sparktui.plan.fit.text import report_lines
from sparktui.scrub import scrub

EXIT_BY_VERDICT = {NO_FIT: EXIT_DOES_NOT_FIT, UNKNOWN: EXIT_FIT_UNKNOWN, ERROR: EXIT_FAILED}


def run_fit(args: argparse.Namespace) -> int:
    loaded = config_from(args)
    plan = build_plan(loaded, recipe_from(args, args.recipe), args.cluster)

    async def go(engine: ClusterControl) -> FitReport:
        return await engine.fit(plan)

    report = with_engine(loaded.config, go)
    if not report.nodes and not args.json:
        print(_("{recipe} runs no engine: there is no model to fit").format(recipe=plan.recipe))
    elif args.json:  # a Hub's answer may echo the token: scrubbed like every edge
        print(scrub(json.dumps(report.as_dict(), indent=2)))
    else:
        print(scrub("\n".join(report_lines(report))))
    return EXIT_BY_VERDICT.get(report.verdict, EXIT_OK)
