"""Find and load config.toml and recipes, validated, with file:line errors."""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sparktui.config.models import Cluster, Config, Node
from sparktui.config.recipe import Recipe
from sparktui.config.source import SourceRef
from sparktui.config.toml_source import load_toml
from sparktui.config.validation import check_config, check_recipe, validate_model
from sparktui.errors import SparkError, fail
from sparktui.resources import data_dir

LOCAL_CLUSTER = "local"


@dataclass(frozen=True)
class LoadedConfig:
    config: Config
    source: SourceRef

    @property
    def builtin(self) -> bool:
        return self.source.path is None


@dataclass(frozen=True)
class LoadedRecipe:
    recipe: Recipe
    source: SourceRef


def config_candidates(environ: Mapping[str, str], cwd: Path, home: Path) -> list[Path]:
    paths = []
    if environ.get("SPARKTUI_CONFIG"):
        paths.append(Path(environ["SPARKTUI_CONFIG"]).expanduser())
    paths.append(cwd / "config.toml")
    paths.append(home / ".config" / "sparktui" / "config.toml")
    return paths


def find_config(explicit: Path | None = None, environ: Mapping[str, str] | None = None,
                cwd: Path | None = None, home: Path | None = None) -> Path | None:
    """--config, then $SPARKTUI_CONFIG, ./config.toml, ~/.config/sparktui/config.toml."""
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    if env.get("SPARKTUI_CONFIG") and not Path(env["SPARKTUI_CONFIG"]).expanduser().is_file():
        raise fail("config_env_missing", file=Path(env["SPARKTUI_CONFIG"]))
    for path in config_candidates(env, cwd or Path.cwd(), home or Path.home()):
        if path.is_file():
            return path
    return None


def load_config(path: Path | None) -> LoadedConfig:
    if path is None:
        return LoadedConfig(builtin_config(), SourceRef(None))
    source_toml = load_toml(path)
    source = SourceRef(path, source_toml.lines)
    config = validate_model(Config, source_toml.data, source)
    check_config(config, source)
    return LoadedConfig(config, source)


def builtin_config() -> Config:
    """The machine itself as a one-node cluster, run without SSH."""
    user = getpass.getuser()
    node = Node(name=socket.gethostname() or "localhost", ssh_ip="127.0.0.1",
                ib_ip="127.0.0.1", rank=0, local=True)
    return Config(ssh_user=user, home_dir=str(Path.home()),
                  clusters=[Cluster(name=LOCAL_CLUSTER, nodes=[node])])


def recipe_dirs(explicit: Path | None, environ: Mapping[str, str] | None = None,
                cwd: Path | None = None, home: Path | None = None) -> Path:
    """--recipes, then $SPARKTUI_RECIPES, ./recipes, ~/.config/sparktui/recipes, examples."""
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    if env.get("SPARKTUI_RECIPES"):
        return Path(env["SPARKTUI_RECIPES"]).expanduser()
    for path in ((cwd or Path.cwd()) / "recipes",
                 (home or Path.home()) / ".config" / "sparktui" / "recipes"):
        if path.is_dir():
            return path
    return data_dir("recipes")


def list_recipes(directory: Path) -> dict[str, Path]:
    if not directory.is_dir():
        raise fail("recipe_dir_missing", file=directory)
    return {p.parent.name: p for p in sorted(directory.glob("*/recipe.toml"))}


def find_recipe(directory: Path, name: str) -> Path:
    as_path = Path(name)
    if as_path.suffix == ".toml" and as_path.is_file():
        return as_path
    if (as_path / "recipe.toml").is_file() and os.sep in name:
        return as_path / "recipe.toml"
    recipes = list_recipes(directory)
    if name not in recipes:
        raise fail("recipe_unknown", name=name, directory=directory, known=sorted(recipes))
    return recipes[name]


def load_recipe(path: Path) -> LoadedRecipe:
    source_toml = load_toml(path)
    source = SourceRef(path, source_toml.lines)
    data = dict(source_toml.data)
    if "name" in data:
        raise SparkError(source.problem("recipe_name_key", ("name",)))
    name = path.parent.name if path.name == "recipe.toml" else path.stem
    recipe = validate_model(Recipe, {**data, "name": name}, source)
    check_recipe(recipe, source)
    return LoadedRecipe(recipe, source)
