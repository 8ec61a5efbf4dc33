"""``re.match`` with ``$`` lets a final newline through; the name and path checks do not."""

from __future__ import annotations

from pathlib import Path

from sparktui.config.recipe_edit import name_problem
from sparktui.config.rules import is_name
from sparktui.plan import hf


def test_a_new_recipe_name_with_a_final_newline_is_refused(tmp_path: Path) -> None:
    problem = name_problem(tmp_path, "copy\n")
    assert problem is not None and problem.code == "recipe_name_invalid"
    assert name_problem(tmp_path, "copy") is None
    assert not is_name("copy\n")


def test_a_resolved_path_with_a_final_newline_is_not_safe() -> None:
    assert hf.safe_path("/root/.cache/huggingface/hub/models--o--r/snapshots/ab12")
    assert not hf.safe_path("/root/.cache/huggingface/hub/models--o--r/snapshots/ab12\n")
