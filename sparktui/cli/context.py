"""Load what every command needs (config, recipes) from the global options."""

from __future__ import annotations

import argparse
from pathlib import Path

from sparktui.config import (
    LoadedConfig,
    LoadedRecipe,
    find_config,
    find_recipe,
    load_config,
    load_recipe,
    recipe_dirs,
)


def config_from(args: argparse.Namespace) -> LoadedConfig:
    return load_config(find_config(args.config))


def recipes_dir_from(args: argparse.Namespace) -> Path:
    return recipe_dirs(args.recipes)


def recipe_from(args: argparse.Namespace, name: str) -> LoadedRecipe:
    return load_recipe(find_recipe(recipes_dir_from(args), name))
