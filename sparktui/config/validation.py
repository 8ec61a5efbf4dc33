"""Turn pydantic's errors into our located problems, and check what types can't.

Structure and types are pydantic-core's job (``extra="forbid"``, strict); the rules
that span fields (ranks, mounts, mods, script aliases) are checked here.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic_core import ValidationError

from sparktui.config.base import Strict
from sparktui.config.grammar import Loc, config_problems, recipe_problems
from sparktui.config.hooks import HookEntry
from sparktui.config.models import Config
from sparktui.config.recipe import Recipe
from sparktui.config.scripts import known_scripts
from sparktui.config.service_checks import check_engine_fields, check_services
from sparktui.config.source import SourceRef
from sparktui.errors import Problem, SparkError

M = TypeVar("M", bound=Strict)

PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_TOML_TYPES = {
    str: "string", int: "integer", float: "float", bool: "boolean",
    list: "array", dict: "table",
}
_EXPECTED = {
    "string_type": "string", "int_type": "integer", "float_type": "float",
    "bool_type": "boolean", "list_type": "array", "dict_type": "table",
    "model_type": "table", "model_attributes_type": "table", "int_from_float": "integer",
}


def validate_model(model: type[M], data: Any, source: SourceRef) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SparkError([_problem(err, source) for err in exc.errors()]) from None


def _problem(err: Any, source: SourceRef) -> Problem:
    kind: str = err["type"]
    loc = tuple(err["loc"])
    ctx = err.get("ctx") or {}
    if kind in ("missing", "extra_forbidden", "hook_shape"):
        return source.problem(kind, loc)
    if kind in _EXPECTED:
        got = _TOML_TYPES.get(type(err.get("input")), type(err.get("input")).__name__)
        return source.problem("wrong_type", loc, expected=_EXPECTED[kind], got=got)
    if kind == "literal_error":
        return source.problem("literal_error", loc, expected=ctx.get("expected", ""))
    if kind == "greater_than_equal":
        return source.problem("too_small", loc, limit=_number(ctx.get("ge")))
    if kind == "greater_than":
        return source.problem("not_above", loc, limit=_number(ctx.get("gt")))
    if kind in ("less_than_equal", "less_than"):
        return source.problem("too_large", loc, limit=_number(ctx.get("le", ctx.get("lt"))))
    if kind == "finite_number":
        return source.problem("not_finite", loc)
    if kind == "string_too_short":
        return source.problem("empty", loc)
    if kind == "too_short":
        return source.problem("too_small", loc, limit=ctx.get("min_length", 1))
    return source.problem("invalid_value", loc, detail=err.get("msg", kind))


def _number(value: Any) -> Any:
    """``0.0`` -> ``0``: limits read as they are written in the config."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def check_hooks(entries: list[HookEntry], loc: tuple, source: SourceRef) -> list[Problem]:
    known = known_scripts()
    return [
        source.problem("unknown_script", (*loc, i, "script"), alias=entry.script, known=known)
        for i, entry in enumerate(entries)
        if entry.script is not None and entry.script not in known
    ]


def check_config(config: Config, source: SourceRef) -> None:
    problems: list[Problem] = config_problems(config, source)
    names: set[str] = set()
    for ci, cluster in enumerate(config.clusters):
        if cluster.name in names:
            problems.append(source.problem("duplicate_name", ("clusters", ci, "name"),
                                           name=cluster.name))
        names.add(cluster.name)
        problems += _check_nodes(cluster.nodes, ("clusters", ci, "nodes"), source)
        if cluster.router is not None and cluster.router_node is None:
            problems.append(source.problem(
                "node_unknown", ("clusters", ci, "router", "node"), cluster=cluster.name,
                node=cluster.router.node, known=", ".join(n.name for n in cluster.nodes)))
    for table in ("nccl", "before_serve"):
        for key in getattr(config, table):
            if key not in names:
                problems.append(source.problem("unknown_cluster_ref", (table, key), name=key))
    for key, block in config.before_serve.items():
        problems += check_hooks(block.commands, ("before_serve", key, "commands"), source)
    if problems:
        raise SparkError(problems)


def _check_nodes(nodes: list, loc: tuple, source: SourceRef) -> list[Problem]:
    problems: list[Problem] = []
    seen_names: set[str] = set()
    by_rank: dict[int, str] = {}
    for ni, node in enumerate(nodes):
        if node.name in seen_names:
            problems.append(source.problem("duplicate_name", (*loc, ni, "name"), name=node.name))
        seen_names.add(node.name)
        if node.rank in by_rank:
            problems.append(source.problem("duplicate_rank", (*loc, ni, "rank"), rank=node.rank,
                                           first=by_rank[node.rank], second=node.name))
        by_rank.setdefault(node.rank, node.name)
    ranks = sorted(by_rank)
    if not problems and ranks != list(range(len(ranks))):
        problems.append(source.problem("ranks_not_contiguous", loc, last=len(ranks) - 1,
                                       ranks=ranks))
    return problems


def check_recipe(recipe: Recipe, source: SourceRef) -> None:
    problems: list[Problem] = recipe_problems(recipe, source)
    problems += check_engine_fields(recipe, source)
    problems += check_hooks(recipe.before_serve, ("before_serve",), source)
    problems += check_hooks(recipe.after_stop, ("after_stop",), source)
    if recipe.mods is not None:
        if not recipe.entrypoint:
            problems.append(source.problem("mods_need_entrypoint", ("mods",)))
        for i, entry in enumerate(recipe.mods.commands):
            if entry.script is not None:
                problems.append(source.problem("mods_script", ("mods", "commands", i, "script")))
    if recipe.engine == "sglang":
        if recipe.pipeline_parallel_size != 1:
            problems.append(source.problem("pp_vllm_only", ("pipeline_parallel_size",)))
        if recipe.distributed_backend == "ray":
            problems.append(source.problem("ray_vllm_only", ("distributed_backend",)))
    problems += _check_mounts(recipe, source)
    problems += check_services(recipe, source)
    if problems:
        raise SparkError(problems)


def _check_mounts(recipe: Recipe, source: SourceRef) -> list[Problem]:
    problems: list[Problem] = []
    defined: set[str] = set()
    for i, mount in enumerate(recipe.extra_mounts):
        loc: Loc = ("extra_mounts", i)
        if mount.is_hf_ref:
            if mount.alias is not None:
                problems.append(source.problem("mount_alias_and_repo", (*loc, "repo")))
            for name in ("host", "read_only", "env"):
                if getattr(mount, name) is not None:
                    problems.append(source.problem("mount_repo_fields", (*loc, name), field=name))
            if not _NAME.fullmatch(mount.container):
                problems.append(source.problem("mount_placeholder_name", (*loc, "container"),
                                               name=mount.container))
            defined.add(mount.container)
        elif mount.alias is None and mount.host is None:
            problems.append(source.problem("mount_no_source", loc))
        elif mount.subfolder is not None:
            problems.append(source.problem("mount_repo_fields", (*loc, "subfolder"),
                                           field="subfolder"))
    uses: list[tuple[Loc, str]] = [(("args", i), arg) for i, arg in enumerate(recipe.args)]
    uses += [(("env", key), value) for key, value in recipe.env.items()]
    for loc, text in uses:
        for name in PLACEHOLDER.findall(text):
            if name not in defined:
                problems.append(source.problem("unknown_placeholder", loc, name=name))
    return problems
