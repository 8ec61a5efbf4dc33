"""The JSON Schema of ``config.toml`` and of a recipe, as pydantic generates it.

Editors with a TOML language server (taplo: VS Code's Even Better TOML, Neovim,
Helix) read it through a ``#:schema`` directive and give completion, hover docs (the
fields' docstrings) and errors while a file is edited. The file:line checks of
``validation`` and ``grammar`` stay the authority: the schema says types, limits and
allowed values, not the rules that span fields.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import textwrap
import typing
from typing import Any

from pydantic import BaseModel

from sparktui.config.models import Config
from sparktui.config.recipe import Recipe

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema(kind: str) -> dict[str, Any]:
    """The schema of ``config`` (config.toml) or ``recipe`` (recipe.toml)."""
    model = Config if kind == "config" else Recipe
    _describe(model, set())
    document = model.model_json_schema()
    if kind == "recipe":  # the folder's name is the recipe's name: a file may not set it
        document["properties"].pop("name", None)
    return {"$schema": DIALECT, **document}


def schema_text(kind: str) -> str:
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"


def _describe(model: type[BaseModel], seen: set[type[BaseModel]]) -> None:
    """Give each field of ``model`` and of the models under it its docstring as its
    description, then rebuild the model so the schema carries them.

    Done here, where a schema is written, and not at import (pydantic's
    ``use_attribute_docstrings``), so no other command parses the models' source.
    """
    if model in seen:
        return
    seen.add(model)
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if issubclass(cls, BaseModel) and cls is not BaseModel:
            docs.update(attribute_docstrings(cls))
    for name, info in model.model_fields.items():
        if info.description is None and name in docs:
            info.description = docs[name]
        for inner in _models_in(info.annotation):
            _describe(inner, seen)
    model.model_rebuild(force=True)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def attribute_docstrings(cls: type) -> dict[str, str]:
    """A class's attribute docstrings: the string right under an annotated field."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # no source (a frozen app): the schema goes without
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for field, after in itertools.pairwise(body):
        if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[field.target.id] = inspect.cleandoc(after.value.value)
    return docs
