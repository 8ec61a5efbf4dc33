"""Load config.toml and recipes, validated, with file:line errors."""

from __future__ import annotations

from pathlib import Path

from sparktui.config.discovery import (  # noqa: F401  (re-exported)
    config_candidates,
    find_config,
    find_recipe,
    list_recipes,
    recipe_dirs,
)
from sparktui.config.grammar import raw_problems
from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.models import Cluster, Config, Node
from sparktui.config.recipe import Recipe
from sparktui.config.rules import is_name
from sparktui.config.source import SourceRef
from sparktui.config.toml_source import TomlSource, load_toml, parse_toml
from sparktui.config.validation import check_config, check_recipe, validate_model
from sparktui.errors import SparkError

LOCAL_CLUSTER = "local"


def load_config(path: Path | None) -> LoadedConfig:
    if path is None:
        return LoadedConfig(builtin_config(), SourceRef(None))
    source_toml = load_toml(path)
    source = SourceRef(path, source_toml.lines)
    _raw(source_toml.data, source)
    config = validate_model(Config, source_toml.data, source)
    check_config(config, source)
    return LoadedConfig(config, source)


def builtin_config() -> Config:
    """The machine itself as a one-node cluster, run without SSH."""
    import getpass
    import socket

    user = getpass.getuser()
    node = Node(name=socket.gethostname() or "localhost", ssh_ip="127.0.0.1",
                ib_ip="127.0.0.1", rank=0, local=True)
    return Config(ssh_user=user, home_dir=str(Path.home()),
                  clusters=[Cluster(name=LOCAL_CLUSTER, nodes=[node])])


def load_recipe(path: Path) -> LoadedRecipe:
    return _recipe(load_toml(path))


def parse_recipe(text: str, path: Path) -> LoadedRecipe:
    """What ``load_recipe(path)`` would return if the file held ``text`` (editors check with it)."""
    return _recipe(parse_toml(text, path))


def _recipe(source_toml: TomlSource) -> LoadedRecipe:
    path = source_toml.path
    source = SourceRef(path, source_toml.lines)
    data = dict(source_toml.data)
    if "name" in data:
        raise SparkError(source.problem("recipe_name_key", ("name",)))
    name = path.parent.name if path.name == "recipe.toml" else path.stem
    if not is_name(name):
        raise SparkError(source.problem("recipe_name_invalid", name=name))
    _raw(data, source)
    recipe = validate_model(Recipe, {**data, "name": name}, source)
    check_recipe(recipe, source)
    return LoadedRecipe(recipe, source)


def _raw(data: dict, source: SourceRef) -> None:
    problems = raw_problems(data, source)
    if problems:
        raise SparkError(problems)
