"""Rules about services and the engine that span fields, each located at file:line.

Kinds, options and node counts are checked later, by ``plan/services``, which knows
the registry and the cluster; here only what the recipe alone decides.
"""

from __future__ import annotations

import re

from sparktui.config import rules
from sparktui.config.recipe import Recipe
from sparktui.config.services import ServiceEntry
from sparktui.config.source import SourceRef
from sparktui.errors import Problem

# Fields that only mean something to an engine; a services-only recipe may not set them.
ENGINE_FIELDS = ("model", "port", "required_nodes", "tensor_parallel_size",
                 "pipeline_parallel_size", "distributed_backend", "shm_size", "runtime",
                 "entrypoint", "before_serve", "after_stop", "args", "extra_mounts", "mods",
                 "env")


def env_key(name: str) -> str:
    """``my-svc`` -> ``MY_SVC`` for ``SPARKTUI_SERVICE_<NAME>_*``."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def check_engine_fields(recipe: Recipe, source: SourceRef) -> list[Problem]:
    """With an engine, image and model are required; without one, engine fields are refused."""
    given = recipe.model_fields_set
    frontend = [source.problem("frontend_dynamo_only", ("frontend", key), key=key)
                for key in ("port", "image")
                if getattr(recipe.frontend, key) is not None and recipe.frontend_type != "dynamo"]
    return frontend + _engine_or_services(recipe, given, source)


def _engine_or_services(recipe: Recipe, given: set[str], source: SourceRef) -> list[Problem]:
    if recipe.has_engine:
        problems = [source.problem("missing", (name,)) for name in ("docker_image", "model")
                    if name not in given]
        if recipe.frontend_type == "none":
            problems.append(source.problem("frontend_none_with_engine", ("frontend", "type")))
        return problems
    if not recipe.services:
        return [source.problem("missing", ("engine",))]
    problems = [source.problem("services_only_field", (name,)) for name in ENGINE_FIELDS
                if name in given]
    if recipe.frontend_type != "none":
        problems.append(source.problem("frontend_needs_engine", ("frontend", "type"),
                                       type=recipe.frontend_type))
    return problems


def check_services(recipe: Recipe, source: SourceRef) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    env_names: dict[str, str] = {}
    owners = {s.name for s in recipe.services if s.nodes is not None and s.enabled}
    for i, entry in enumerate(recipe.services):
        loc = ("services", i)
        if not rules.is_name(entry.name):
            problems.append(source.problem("name_invalid", (*loc, "name"), name=entry.name))
        elif entry.name in seen:
            problems.append(source.problem("duplicate_name", (*loc, "name"), name=entry.name))
        elif env_key(entry.name) in env_names:
            problems.append(source.problem("service_env_clash", (*loc, "name"), name=entry.name,
                                           other=env_names[env_key(entry.name)],
                                           key=env_key(entry.name)))
        seen[entry.name] = entry.name
        env_names.setdefault(env_key(entry.name), entry.name)
        problems += _placement(entry, loc, owners, source)
        problems += _readiness(entry, loc, source)
        problems += _metrics(entry, loc, source)
    return problems


def _placement(entry: ServiceEntry, loc: tuple, owners: set[str],
               source: SourceRef) -> list[Problem]:
    place = entry.placement
    problems = []
    if place.pool is not None and place.node is not None:
        problems.append(source.problem("service_pool_and_node", (*loc, "placement", "pool")))
    if entry.nodes is not None:
        if place.pool is not None:
            problems.append(source.problem("service_owner_rides", (*loc, "placement", "pool")))
        elif place.node not in (None, "workers"):
            problems.append(source.problem("service_owner_placement",
                                           (*loc, "placement", "node"), node=place.node))
    elif place.pool is not None and entry.enabled and place.pool not in owners:
        problems.append(source.problem("service_pool_unknown", (*loc, "placement", "pool"),
                                       pool=place.pool, owners=sorted(owners) or "-"))
    return problems


def _readiness(entry: ServiceEntry, loc: tuple, source: SourceRef) -> list[Problem]:
    spec = entry.readiness
    if spec is None:
        return []
    loc = (*loc, "readiness")
    probe = spec.probe
    given = [k for k in ("port", "path", "log") if getattr(spec, k) is not None]
    allowed = {"tcp": {"port"}, "http": {"port", "path"}, "log": {"log"}, "none": set(),
               None: set()}[probe]
    problems = [source.problem("readiness_field", (*loc, key), key=key, kind=probe)
                for key in given if key not in allowed]
    needed = {"tcp": ("port",), "http": ("port",), "log": ("log",)}.get(probe or "", ())
    problems += [source.problem("readiness_needs", loc, kind=probe, key=key)
                 for key in needed if getattr(spec, key) is None]
    if spec.log is not None:
        try:
            re.compile(spec.log)
        except re.error as exc:
            problems.append(source.problem("readiness_bad_regex", (*loc, "log"),
                                           detail=str(exc)))
    return problems


def _metrics(entry: ServiceEntry, loc: tuple, source: SourceRef) -> list[Problem]:
    metrics = entry.metrics or []
    problems = []
    names: set[str] = set()
    for m, spec in enumerate(metrics):
        if len(metrics) > 1 and spec.name is None:
            problems.append(source.problem("metrics_name_required", (*loc, "metrics", m)))
        elif spec.name is not None and spec.name in names:
            problems.append(source.problem("duplicate_name", (*loc, "metrics", m, "name"),
                                           name=spec.name))
        if spec.name is not None:
            names.add(spec.name)
    return problems
