"""recipe.toml: every field, the hook forms, mounts, mods, env, and recipe lookup."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_support import EXAMPLE_RECIPES, RECIPES, VLLM_MIN, load_rec, problem_of, recipe_file

from sparktui.config.discovery import find_recipe, list_recipes
from sparktui.config.hooks import HookEntry
from sparktui.config.loader import load_recipe
from sparktui.config.recipe import Mount

FULL = """
description = "everything set"
engine = "vllm"
docker_image = "nvcr.io/nvidia/vllm:25.10-py3"
model = "org/Big-Model"
port = 8123
required_nodes = 2
tensor_parallel_size = 2
pipeline_parallel_size = 0
distributed_backend = "ray"
shm_size = "64gb"
runtime = "docker"
entrypoint = ["vllm", "serve"]
before_serve = [
  "sudo nvidia-smi -lgc 2000",
  { command = "echo hi", on_failure = "warn" },
  { script = "stop_dgx_services" },
  { script = "stop_dgx_services", on_failure = "warn" },
]
after_stop = [{ script = "restore_dgx_services" }]
args = ["--max-model-len", "4096", "--speculative-config", "{{draft}}"]

[[extra_mounts]]
alias = "jit_cache"
host = "~/.cache/jit"
container = "/root/.cache/jit"
read_only = true
env = "JIT_DIR"

[[extra_mounts]]
repo = "org/Draft"
subfolder = "mtp"
container = "draft"

[mods]
commands = ["pip install x", { command = "./patch.sh", on_failure = "warn" }]

[env]
KEY = "val"
OTHER = "with spaces = fine"
"""


def test_every_field_is_read(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, FULL, name="big-one").recipe
    assert rec.name == "big-one"  # from the folder
    assert rec.description == "everything set"
    assert (rec.engine, rec.docker_image, rec.model) == (
        "vllm", "nvcr.io/nvidia/vllm:25.10-py3", "org/Big-Model")
    assert (rec.port, rec.required_nodes, rec.tensor_parallel_size) == (8123, 2, 2)
    assert (rec.pipeline_parallel_size, rec.distributed_backend) == (0, "ray")
    assert (rec.shm_size, rec.runtime, rec.entrypoint) == ("64gb", "docker", ["vllm", "serve"])
    assert rec.before_serve == [
        HookEntry(command="sudo nvidia-smi -lgc 2000"),
        HookEntry(command="echo hi", on_failure="warn"),
        HookEntry(script="stop_dgx_services"),
        HookEntry(script="stop_dgx_services", on_failure="warn"),
    ]
    assert rec.after_stop == [HookEntry(script="restore_dgx_services", on_failure="abort")]
    assert rec.args == ["--max-model-len", "4096", "--speculative-config", "{{draft}}"]
    bind, ref = rec.extra_mounts
    assert bind == Mount(alias="jit_cache", host="~/.cache/jit", container="/root/.cache/jit",
                         read_only=True, env="JIT_DIR")
    assert not bind.is_hf_ref
    assert ref == Mount(repo="org/Draft", subfolder="mtp", container="draft")
    assert ref.is_hf_ref
    assert rec.mods is not None
    assert rec.mods.commands == [HookEntry(command="pip install x"),
                                 HookEntry(command="./patch.sh", on_failure="warn")]
    assert rec.env == {"KEY": "val", "OTHER": "with spaces = fine"}


def test_defaults(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, VLLM_MIN).recipe
    assert (rec.port, rec.required_nodes, rec.tensor_parallel_size) == (30000, None, 1)
    assert (rec.pipeline_parallel_size, rec.distributed_backend) == (1, "mp")
    assert (rec.shm_size, rec.runtime, rec.entrypoint, rec.description) == ("", "docker", [], "")
    assert rec.before_serve == [] and rec.after_stop == [] and rec.args == []
    assert rec.extra_mounts == [] and rec.mods is None and rec.env == {}


def test_hook_entry_forms_directly() -> None:
    assert HookEntry.model_validate("ls -l") == HookEntry(command="ls -l", on_failure="abort")
    warn = HookEntry.model_validate({"command": "x", "on_failure": "warn"})
    assert (warn.kind, warn.run, warn.on_failure) == ("command", "x", "warn")
    script = HookEntry.model_validate({"script": "stop_dgx_services"})
    assert (script.kind, script.run, script.on_failure) == ("script", "stop_dgx_services",
                                                            "abort")


def test_sglang_recipe(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, """
        engine = "sglang"
        docker_image = "lmsysorg/sglang:spark"
        model = "openai/gpt-oss-120b"
        tensor_parallel_size = 2
    """).recipe
    assert (rec.engine, rec.pipeline_parallel_size, rec.distributed_backend) == ("sglang", 1,
                                                                                 "mp")


def test_tmux_runtime(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, VLLM_MIN + 'runtime = "tmux"\n').recipe
    assert rec.runtime == "tmux"


def test_mods_with_entrypoint_is_accepted(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, VLLM_MIN + 'entrypoint = ["vllm", "serve"]\n'
                   '[mods]\ncommands = ["true"]\n').recipe
    assert rec.mods is not None and rec.mods.commands == [HookEntry(command="true")]


def test_empty_mods_table_still_needs_entrypoint(tmp_path: Path) -> None:
    text = VLLM_MIN + "[mods]\n"
    err = problem_of(lambda: load_rec(tmp_path, text))
    assert [p.code for p in err.problems] == ["mods_need_entrypoint"]


def test_bind_mount_with_host_only(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, VLLM_MIN + '[[extra_mounts]]\nhost = "/data"\ncontainer = "/d"\n')
    (mount,) = rec.recipe.extra_mounts
    assert (mount.alias, mount.host, mount.container, mount.read_only) == (None, "/data", "/d",
                                                                          None)


def test_hf_ref_without_subfolder(tmp_path: Path) -> None:
    rec = load_rec(tmp_path, VLLM_MIN + 'args = ["--model-dir", "{{weights}}"]\n'
                   '[[extra_mounts]]\nrepo = "org/w"\ncontainer = "weights"\n').recipe
    (mount,) = rec.extra_mounts
    assert mount.is_hf_ref and mount.subfolder is None


@pytest.mark.parametrize("name", EXAMPLE_RECIPES)
def test_example_recipes_load(name: str) -> None:
    loaded = load_recipe(RECIPES / name / "recipe.toml")
    assert loaded.recipe.name == name
    assert loaded.source.path == RECIPES / name / "recipe.toml"


def test_example_recipe_set_is_the_documented_one() -> None:
    assert EXAMPLE_RECIPES == ["glm-4.5-air-mtp", "gpt-oss-120b-sglang", "llama-3.3-70b-ray",
                               "pools-toy", "qwen3-235b-2node", "qwen3-30b-dynamo",
                               "qwen3-30b-tmux"]


# -- finding recipes --------------------------------------------------------------------


def test_list_and_find(tmp_path: Path) -> None:
    first = recipe_file(tmp_path, VLLM_MIN, "b-recipe")
    second = recipe_file(tmp_path, VLLM_MIN, "a-recipe")
    (tmp_path / "recipes" / "not-a-recipe").mkdir()
    directory = tmp_path / "recipes"
    assert list_recipes(directory) == {"a-recipe": second, "b-recipe": first}
    assert find_recipe(directory, "b-recipe") == first


def test_find_by_path(tmp_path: Path) -> None:
    loose = tmp_path / "loose.toml"
    loose.write_text(VLLM_MIN, encoding="utf-8")
    assert find_recipe(tmp_path / "elsewhere", str(loose)) == loose
    assert load_recipe(loose).recipe.name == "loose"
    folder = recipe_file(tmp_path, VLLM_MIN, "in-folder")
    assert find_recipe(tmp_path / "elsewhere", str(folder.parent)) == folder


def test_unknown_recipe_lists_the_known_ones(tmp_path: Path) -> None:
    recipe_file(tmp_path, VLLM_MIN, "alpha")
    recipe_file(tmp_path, VLLM_MIN, "beta")
    err = problem_of(lambda: find_recipe(tmp_path / "recipes", "gamma"))
    text = err.render()
    assert "gamma" in text and "alpha, beta" in text


def test_missing_recipes_folder(tmp_path: Path) -> None:
    err = problem_of(lambda: list_recipes(tmp_path / "nowhere"))
    assert err.render() == f"{tmp_path / 'nowhere'}: recipes folder not found"
