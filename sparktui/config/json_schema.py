"""The JSON Schema of ``config.toml`` and of a recipe, as pydantic generates it.

Editors with a TOML language server (taplo: VS Code's Even Better TOML, Neovim,
Helix) read it through a ``#:schema`` directive and give completion, hover docs (the
fields' docstrings) and errors while a file is edited. The file:line checks of
``validation`` and ``grammar`` stay the authority: the schema says types, limits and
allowed values, not the rules that span fields.
"""

from __future__ import annotations

import json
from typing import Any

from sparktui.config.models import Config
from sparktui.config.recipe import Recipe

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema(kind: str) -> dict[str, Any]:
    """The schema of ``config`` (config.toml) or ``recipe`` (recipe.toml)."""
    model = Config if kind == "config" else Recipe
    document = model.model_json_schema()
    if kind == "recipe":  # the folder's name is the recipe's name: a file may not set it
        document["properties"].pop("name", None)
    return {"$schema": DIALECT, **document}


def schema_text(kind: str) -> str:
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"
