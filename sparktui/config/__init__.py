"""Config and recipes: strict models (validated by pydantic-core), TOML loading, file:line
errors.

Names load on first use (PEP 562) so that path discovery alone never imports the
models: the dashboard's first frame depends on it.
"""

from __future__ import annotations

from sparktui.lazy import lazy_exports

_EXPORTS = {
    "LOCAL_CLUSTER": "loader", "LoadedConfig": "loaded", "LoadedRecipe": "loaded",
    "load_config": "loader", "load_recipe": "loader", "builtin_config": "loader",
    "parse_recipe": "loader",
    "find_config": "discovery", "find_recipe": "discovery", "list_recipes": "discovery",
    "recipe_dirs": "discovery", "config_candidates": "discovery",
    "Cluster": "models", "Config": "models", "Nccl": "models", "Node": "models",
    "Mount": "recipe", "Recipe": "recipe",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
