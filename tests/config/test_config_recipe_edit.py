"""The recipe form's own checks, without the TUI around it."""

from __future__ import annotations

from plan_support import RECIPES

from sparktui.config.recipe_edit import apply_form, form_values


def test_a_key_twice_in_the_env_box_is_a_problem_on_that_key():
    path = RECIPES / "gpt-oss-120b-sglang" / "recipe.toml"
    text = path.read_text(encoding="utf-8")
    values = form_values(text, path)
    result = apply_form(text, {**values, "env": "A=1\nA=2"}, path)
    assert not result.ok
    assert [(p.field, p.code, p.params) for p in result.problems] == [
        ("env.A", "duplicate_name", {"name": "A"})]
    assert result.problems[0].render()  # the message names the key
