"""recipes: every recipe of the recipes folder, as the dashboard's recipes pane lists it.

The rows come from the pane's own model (``sparktui.tui.viewmodel.recipes``: plain
functions, no Textual): the same node count (the plan's), the same misfit, the same
order (what fits first), so the shell and the dashboard never disagree.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from sparktui.config.discovery import find_config, recipe_dirs
from sparktui.config.loader import load_config
from sparktui.config.models import Cluster, Config
from sparktui.errors import EXIT_OK, SparkError
from sparktui.i18n import _, ngettext
from sparktui.plan.cluster import pick_cluster
from sparktui.tui.viewmodel.recipes import (
    RecipeEntry,
    fit_first,
    scan_recipes,
    short_problem,
)
from sparktui.visible import visible


def run_recipes(args: argparse.Namespace) -> int:
    # Not cli.context: it brings the engine and asyncio, and this reads no node.
    loaded = load_config(find_config(args.config))
    cluster = _cluster(loaded.config, args.cluster)
    directory = recipe_dirs(args.recipes)
    entries, problems = scan_recipes(directory)
    if problems:  # no folder, or not one: nothing to list
        raise SparkError(problems)
    ordered, why = fit_first(entries, cluster)
    if args.json:
        print(json.dumps({"folder": str(directory),
                          "cluster": cluster.name if cluster is not None else None,
                          "recipes": [_as_dict(e, cluster, why.get(e.name))
                                      for e in ordered]}, indent=2))
        return EXIT_OK
    print(_header(directory, cluster, len(entries)))
    rows = [_row(e, cluster, why.get(e.name)) for e in ordered]
    widths = [max((len(r[i]) for r in rows if len(r) > 2), default=0) for i in range(5)]
    for row in rows:
        if len(row) == 2:  # a recipe that does not load: its name, then why
            print(f"  {row[0]:<{widths[0]}}  {row[1]}")
            continue
        cells = [f"{cell:<{width}}" for cell, width in zip(row[:5], widths, strict=True)]
        print("  " + "  ".join([*cells, row[5]]))
    return EXIT_OK


def _cluster(config: Config, requested: str | None) -> Cluster | None:
    """The one asked for (name or unique prefix), else the first, as the dashboard opens
    on it; None: the config has no cluster (nothing to fit)."""
    if requested is not None:
        return pick_cluster(config, requested)
    return config.clusters[0] if config.clusters else None


def _header(directory, cluster: Cluster | None, count: int) -> str:
    recipes = ngettext("{n} recipe in {folder}", "{n} recipes in {folder}", count).format(
        n=count, folder=visible(str(directory)))
    if cluster is None:
        return recipes + "; " + _("no cluster in the config to fit them to")
    return recipes + "; " + _("fit to cluster {cluster} ({nodes})").format(
        cluster=visible(cluster.name),
        nodes=ngettext("{n} node", "{n} nodes", len(cluster.nodes)).format(
            n=len(cluster.nodes)))


def _row(entry: RecipeEntry, cluster: Cluster | None, misfit: str | None) -> list[str]:
    """name, engine, nodes, port, fit, folder; a broken recipe: name, its first problem."""
    facts = entry.facts(cluster)
    name = visible(entry.name)
    if facts is None:
        problem = short_problem(entry.problems[0]) if entry.problems else _("broken")
        return [name, "⚠ " + visible(problem)]
    fit = ("✗ " + misfit if misfit is not None
           else _("fits") if cluster is not None else "")
    return [name, facts.engine or _("services only"),
            ngettext("{n} node", "{n} nodes", facts.nodes).format(n=facts.nodes),
            f":{facts.port}" if facts.port is not None else "", fit,
            visible(str(entry.folder))]


def _as_dict(entry: RecipeEntry, cluster: Cluster | None, misfit: str | None
             ) -> dict[str, Any]:
    facts = entry.facts(cluster)
    return {"name": entry.name, "folder": str(entry.folder), "loads": facts is not None,
            "engine": facts.engine if facts is not None else None,
            "nodes": facts.nodes if facts is not None else None,
            "port": facts.port if facts is not None else None,
            "fits": None if facts is None or cluster is None else misfit is None,
            "why_not": misfit,
            "problems": [short_problem(p) for p in entry.problems]}
