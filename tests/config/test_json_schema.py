"""The JSON Schema pydantic generates for config.toml and recipes, read by a maintained
validator (jsonschema) the way an editor's TOML server reads it: every shipped file is
valid, and a wrong value is flagged."""

from __future__ import annotations

import tomllib

import pytest
from jsonschema import Draft202012Validator
from plan_support import EXAMPLE_CONFIG, RECIPES

from sparktui.config.json_schema import schema


def _validator(kind: str) -> Draft202012Validator:
    document = schema(kind)
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document)


def _errors(kind: str, data: dict) -> list[str]:
    return [e.message for e in _validator(kind).iter_errors(data)]


def test_example_config_is_valid() -> None:
    assert _errors("config", tomllib.loads(EXAMPLE_CONFIG.read_text())) == []


@pytest.mark.parametrize("path", sorted(RECIPES.glob("*/recipe.toml")),
                         ids=lambda p: p.parent.name)
def test_shipped_recipe_is_valid(path) -> None:
    assert _errors("recipe", tomllib.loads(path.read_text())) == []


def test_wrong_values_are_flagged() -> None:
    recipe = tomllib.loads((RECIPES / "glm-4.5-air-mtp" / "recipe.toml").read_text())
    assert _errors("recipe", {**recipe, "port": "8000"}) == ["'8000' is not of type 'integer'"]
    assert _errors("recipe", {**recipe, "engine": "tgi"}) == [
        "'tgi' is not valid under any of the given schemas"]  # vllm, sglang (or unset)
    assert len(_errors("recipe", {**recipe, "prot": 8000})) == 1  # unknown key
    assert len(_errors("recipe", {**recipe, "name": "x"})) == 1  # the folder names it
    config = tomllib.loads(EXAMPLE_CONFIG.read_text())
    assert len(_errors("config", {**config, "connect_timeout_seconds": 0})) == 1


def test_descriptions_come_from_the_docstrings() -> None:
    props = schema("config")["properties"]
    assert "/v1/models" in props["ready_timeout_seconds"]["description"]
    assert "tmux" in schema("recipe")["properties"]["runtime"]["description"]


def test_recipes_sparktui_writes_point_taplo_at_the_schema_beside_them(tmp_path) -> None:
    """The copied examples and a duplicate start with taplo's ``#:schema`` directive, once,
    and the file it names (relative to the recipe) is the schema they validate against."""
    import json

    from sparktui.config.recipe_edit import (
        SCHEMA_DIRECTIVE,
        copy_recipes,
        duplicate_recipe,
    )

    target = tmp_path / "recipes"
    copied = copy_recipes(RECIPES, target)
    assert copied
    twin = duplicate_recipe(target, target / copied[0] / "recipe.toml", "twin")
    for path in [target / name / "recipe.toml" for name in copied] + [twin]:
        text = path.read_text()
        assert text.startswith(SCHEMA_DIRECTIVE + "\n") and text.count("#:schema") == 1, path
        named = path.parent / SCHEMA_DIRECTIVE.removeprefix("#:schema ")
        document = json.loads(named.read_text())
        assert document == schema("recipe")
        assert list(Draft202012Validator(document).iter_errors(tomllib.loads(text))) == []
