"""``sparktui pin``'s edit of a recipe: only ``docker_image`` changes; comments, order and
layout stay, and a result that would not load is not written."""

from __future__ import annotations

from sparktui.config.recipe_edit import pin_image

DIGEST = "sha256:" + "c" * 64
RECIPE = """#:schema ../recipe.schema.json
# Qwen on two nodes
engine = "vllm"
docker_image = "127.0.0.1:5000/org/img:latest"  # the tag we follow
model = "org/toy"   # aligned comment

args = [
  "--max-model-len", "4096",  # short
]

[env]
# NCCL
NCCL_DEBUG = "INFO"
"""


def test_pin_changes_only_the_image_line(tmp_path):
    path = tmp_path / "toy" / "recipe.toml"
    path.parent.mkdir()
    path.write_text(RECIPE)
    result = pin_image(path, f"127.0.0.1:5000/org/img@{DIGEST}")
    assert result.ok, result.problems
    text = path.read_text()
    assert text == RECIPE.replace('"127.0.0.1:5000/org/img:latest"',
                                  f'"127.0.0.1:5000/org/img@{DIGEST}"')


def test_pin_adds_the_line_when_the_recipe_had_none(tmp_path):
    path = tmp_path / "toy" / "recipe.toml"
    path.parent.mkdir()
    path.write_text('# mine\nengine = "vllm"\nmodel = "org/toy"\n')
    assert pin_image(path, f"img@{DIGEST}").ok
    text = path.read_text()
    assert text.startswith('# mine\nengine = "vllm"\nmodel = "org/toy"\n')
    assert f'docker_image = "img@{DIGEST}"' in text


def test_a_pin_the_recipe_would_not_load_with_is_not_written(tmp_path):
    path = tmp_path / "toy" / "recipe.toml"
    path.parent.mkdir()
    path.write_text(RECIPE)
    result = pin_image(path, "")  # an empty image is no image
    assert not result.ok
    assert path.read_text() == RECIPE
