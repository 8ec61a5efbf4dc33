"""Load what every engine command needs (config, recipes) from the global options, and
run one engine call: the one place the commands build an engine.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from sparktui.config.discovery import find_config, find_recipe, recipe_dirs
from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.loader import load_config, load_recipe
from sparktui.config.models import Config
from sparktui.engine.cluster import ClusterEngine

T = TypeVar("T")


def config_from(args: argparse.Namespace) -> LoadedConfig:
    return load_config(find_config(args.config))


def recipes_dir_from(args: argparse.Namespace) -> Path:
    return recipe_dirs(args.recipes)


def recipe_from(args: argparse.Namespace, name: str) -> LoadedRecipe:
    return load_recipe(find_recipe(recipes_dir_from(args), name))


def with_engine(config: Config, call: Callable[[ClusterEngine], Awaitable[T]]) -> T:
    """Run one engine call in its own event loop and close every connection after."""

    async def go() -> T:
        engine = ClusterEngine(config)
        try:
            return await call(engine)
        finally:
            await engine.close()

    return asyncio.run(go())
