"""Check every string of a loaded config or recipe against its grammar (``rules``).

``raw_problems`` runs on the parsed TOML before the models: no key and no string
value may hold a control character. ``config_problems`` and ``recipe_problems`` run
on the validated models: names, hosts, users, images, sizes, paths, env keys. Every
problem is located (file:line, field) and never repeats the refused value when the
value is a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sparktui.config import rules
from sparktui.config.models import Config, Slurm
from sparktui.config.recipe import Recipe
from sparktui.config.source import SourceRef
from sparktui.errors import Problem
from sparktui.scrub import redact_url

Loc = tuple[str | int, ...]



def raw_problems(data: dict[str, Any], source: SourceRef) -> list[Problem]:
    """Control characters in any key or string of the parsed TOML (tab and newline are
    refused in keys; in values the grammars below refuse them where they do not belong)."""
    problems = []
    for loc, key, value in _strings(data, ()):
        if key is not None and (char := rules.control_char(key, newlines=False)):
            problems.append(source.problem("key_control", loc, char=char))
        if isinstance(value, str) and (char := rules.control_char(value)):
            problems.append(source.problem("value_control", loc, char=char))
    return problems


def _strings(value: Any, loc: Loc) -> Iterator[tuple[Loc, str | None, Any]]:
    """Every (location, key, value) pair, iteratively: a deep file must not recurse."""
    stack: list[tuple[Loc, str | None, Any]] = [(loc, None, value)]
    while stack:
        here, key, item = stack.pop()
        yield here, key, item
        if isinstance(item, dict):
            stack.extend(((*here, k), k, v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*here, i), None, v) for i, v in reversed(list(enumerate(item))))


class _Checker:
    def __init__(self, source: SourceRef):
        self.source = source
        self.problems: list[Problem] = []

    def add(self, code: str, loc: Loc, **params: Any) -> None:
        self.problems.append(self.source.problem(code, loc, **params))

    def name(self, value: str | None, loc: Loc, kind: str) -> None:
        if value is not None and not rules.is_name(value):
            self.add("name_invalid", loc, name=value, kind=kind)

    def match(self, pattern: re.Pattern[str], value: str | None, loc: Loc, code: str,
              **params: Any) -> None:
        if value is not None and pattern.fullmatch(value) is None:
            self.add(code, loc, value=value, **params)

    def image(self, value: str | None, loc: Loc) -> None:
        if value and not rules.is_image(value):
            self.add("image_invalid", loc, value=value)

    def path(self, value: str | None, loc: Loc, *, container: bool = False) -> None:
        if value is None:
            return
        code = rules.path_problem(value, container=container)
        if code is not None:
            self.add(code, loc, host=value, path=value)

    def one_line(self, value: str | None, loc: Loc) -> None:
        if value and (char := rules.control_char(value, newlines=False)):
            self.add("value_control", loc, char=char)

    def env(self, env: dict[str, str], loc: Loc) -> None:
        for key in env:
            self.match(rules.ENV_KEY, key, (*loc, key), "env_key_invalid")


def config_problems(config: Config, source: SourceRef) -> list[Problem]:
    check = _Checker(source)
    check.match(rules.USER, config.ssh_user, ("ssh_user",), "ssh_user_invalid")
    for name in ("ssh_key_path", "known_hosts_path"):
        check.one_line(getattr(config, name), (name,))
    if "home_dir" in config.model_fields_set:
        check.path(config.home_dir, ("home_dir",), container=True)
    check.image(config.supervise_image, ("supervise_image",))
    check.path(config.supervise_key_path, ("supervise_key_path",))
    for ci, cluster in enumerate(config.clusters):
        loc: Loc = ("clusters", ci)
        check.name(cluster.name, (*loc, "name"), "cluster")
        if cluster.master_ib_ip:
            check.match(rules.HOST, cluster.master_ib_ip, (*loc, "master_ib_ip"),
                        "host_invalid")
        for ei, entity in enumerate(cluster.extra_entities):
            check.match(rules.ENTITY, entity, (*loc, "extra_entities", ei), "entity_invalid")
        for ni, node in enumerate(cluster.nodes):
            nloc: Loc = (*loc, "nodes", ni)
            check.name(node.name, (*nloc, "name"), "node")
            check.match(rules.HOST, node.ssh_ip, (*nloc, "ssh_ip"), "host_invalid")
            if node.ib_ip:
                check.match(rules.HOST, node.ib_ip, (*nloc, "ib_ip"), "host_invalid")
            check.match(rules.ENTITY, node.entity, (*nloc, "entity"), "entity_invalid")
        if cluster.slurm is not None:
            _slurm(check, cluster.slurm, (*loc, "slurm"))
        if cluster.router is not None:
            check.image(cluster.router.image, (*loc, "router", "image"))
            if cluster.router.api_key is not None:
                _token(check, cluster.router.api_key.get_secret_value(),
                       (*loc, "router", "api_key"), short="key_short")
    for key, nccl in config.nccl.items():
        for name in ("ib_hca", "socket_ifname"):
            check.match(rules.NCCL_VALUE, getattr(nccl, name), ("nccl", key, name),
                        "nccl_value_invalid")
    for table in ("exec_aliases", "mount_aliases"):
        for key in getattr(config, table):
            check.name(key, (table, key), "alias")
    for key, host in config.mount_aliases.items():
        check.path(host, ("mount_aliases", key))
    ha = config.home_assistant
    if ha is not None:
        if rules.URL.fullmatch(ha.url) is None:  # shown without its credentials
            check.add("ha_url_invalid", ("home_assistant", "url"), value=redact_url(ha.url))
        _token(check, ha.token.get_secret_value(), ("home_assistant", "token"))
    return check.problems


def _token(check: _Checker, token: str, loc: Loc, short: str = "token_short") -> None:
    """A secret sent in an HTTP header (the Home Assistant token, the router's key):
    printable ASCII without spaces, and long enough to be one."""
    if rules.TOKEN.fullmatch(token) is None:
        check.add("token_invalid", loc)
    elif len(token) < rules.TOKEN_MIN_LENGTH:
        check.add(short, loc, limit=rules.TOKEN_MIN_LENGTH)


def recipe_problems(recipe: Recipe, source: SourceRef) -> list[Problem]:
    check = _Checker(source)
    check.image(recipe.docker_image, ("docker_image",))
    if recipe.model.startswith("-"):
        check.add("model_invalid", ("model",), value=recipe.model)
    check.one_line(recipe.model, ("model",))
    check.match(rules.SIZE, recipe.shm_size or None, ("shm_size",), "size_invalid")
    check.env(recipe.env, ("env",))
    for i, mount in enumerate(recipe.extra_mounts):
        loc: Loc = ("extra_mounts", i)
        check.name(mount.alias, (*loc, "alias"), "alias")
        check.path(mount.host, (*loc, "host"))
        if not mount.is_hf_ref:
            check.path(mount.container, (*loc, "container"), container=True)
        else:
            check.match(rules.HF_REPO, mount.repo, (*loc, "repo"), "hf_repo_invalid")
        check.match(rules.ENV_KEY, mount.env, (*loc, "env"), "env_key_invalid")
        if mount.subfolder is not None and (mount.subfolder.startswith("/")
                                            or ".." in mount.subfolder.split("/")):
            check.add("subfolder_invalid", (*loc, "subfolder"), value=mount.subfolder)
    check.image(recipe.frontend.image, ("frontend", "image"))
    for i, service in enumerate(recipe.services):
        loc = ("services", i)
        check.image(service.image, (*loc, "image"))
        check.one_line(service.type, (*loc, "type"))
        check.env(service.env, (*loc, "env"))
        check.name(service.placement.pool, (*loc, "placement", "pool"), "pool")
        if service.readiness is not None:
            check.match(rules.URL_PATH, service.readiness.path, (*loc, "readiness", "path"),
                        "url_path_invalid")
        for m, metrics in enumerate(service.metrics or []):
            check.match(rules.URL_PATH, metrics.path, (*loc, "metrics", m, "path"),
                        "url_path_invalid")
            check.name(metrics.name, (*loc, "metrics", m, "name"), "metrics")
        for m, bind in enumerate(service.mounts):
            check.path(bind.host, (*loc, "mounts", m, "host"))
            check.path(bind.container, (*loc, "mounts", m, "container"), container=True)
    return check.problems


def _slurm(check: _Checker, slurm: Slurm, loc: Loc) -> None:
    """Every value reaches an ``#SBATCH`` line or an ``sbatch`` argv: one grammar each."""
    for key in ("partition", "account", "qos", "reservation"):
        check.match(rules.SLURM_NAME, getattr(slurm, key), (*loc, key), "slurm_name_invalid")
    if slurm.submit_host:
        check.match(rules.HOST, slurm.submit_host, (*loc, "submit_host"), "host_invalid")
    check.match(rules.SLURM_TIME, slurm.time_limit, (*loc, "time_limit"), "slurm_time_invalid")
