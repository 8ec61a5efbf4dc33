"""Config and recipes: pydantic models, TOML loading, file:line errors."""

from sparktui.config.loader import (
    LOCAL_CLUSTER,
    LoadedConfig,
    LoadedRecipe,
    find_config,
    find_recipe,
    list_recipes,
    load_config,
    load_recipe,
    recipe_dirs,
)
from sparktui.config.models import Cluster, Config, Nccl, Node
from sparktui.config.recipe import Mount, Recipe

__all__ = [
    "LOCAL_CLUSTER", "Cluster", "Config", "LoadedConfig", "LoadedRecipe", "Mount", "Nccl",
    "Node", "Recipe", "find_config", "find_recipe", "list_recipes", "load_config",
    "load_recipe", "recipe_dirs",
]
