"""Where config.toml and the recipes are: cheap path lookups, no validation.

Kept apart from loading so the dashboard's first frame can find its inputs without
paying for the models.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sparktui.errors import fail
from sparktui.resources import data_dir


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


def recipe_dirs(explicit: Path | None, environ: Mapping[str, str] | None = None,
                cwd: Path | None = None, home: Path | None = None) -> Path:
    """--recipes, then $SPARKTUI_RECIPES, ./recipes, ~/.config/sparktui/recipes, examples."""
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    if env.get("SPARKTUI_RECIPES"):
        return Path(env["SPARKTUI_RECIPES"]).expanduser()
    for path in ((cwd or Path.cwd()) / "recipes", user_recipes_dir(home)):
        if path.is_dir():
            return path
    return data_dir("recipes")


def user_recipes_dir(home: Path | None = None) -> Path:
    """Where the user's own recipes live (and copies of the shipped examples go)."""
    return (home or Path.home()) / ".config" / "sparktui" / "recipes"


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
