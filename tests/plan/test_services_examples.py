"""Every example recipe's argv is what runs: docker does not expand ``$VAR`` or ``${VAR}``.

A variable reference is only meaningful inside a shell's script (``sh -c SCRIPT``);
anywhere else in a launch argv it reaches the program as literal text.
"""

from __future__ import annotations

import re

import pytest
from plan_support import EXAMPLE_CONFIG, EXAMPLE_RECIPES, RECIPES

from sparktui.config.loader import load_config, load_recipe
from sparktui.plan.build import build_plan

SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash"}
VARIABLE = re.compile(r"\$\{|\$[A-Za-z_]")


def unexpanded(argv: list[str]) -> list[str]:
    """Items of ``argv`` that name a variable outside a shell's ``-c`` script."""
    found = []
    for i, item in enumerate(argv):
        if not VARIABLE.search(item):
            continue
        shell_script = i >= 2 and argv[i - 1] == "-c" and argv[i - 2] in SHELLS
        entrypoint_shell = (i >= 4 and argv[i - 1] == "-c" and argv[i - 4] == "--entrypoint"
                            and argv[i - 3] in SHELLS)  # --entrypoint sh IMAGE -c SCRIPT
        if not (shell_script or entrypoint_shell):
            found.append(item)
    return found


def test_the_check_catches_a_literal_variable() -> None:
    assert unexpanded(["docker", "run", "img", "--data-urls=${SPARKTUI_SERVICE_DATA_IPS}",
                       "-e", "X=$HOME"]) == ["--data-urls=${SPARKTUI_SERVICE_DATA_IPS}",
                                             "X=$HOME"]
    assert unexpanded(["docker", "run", "--entrypoint", "sh", "img", "-c",
                       'exec x --urls="$SPARKTUI_SERVICE_DATA_IPS"']) == []


@pytest.mark.parametrize("recipe", EXAMPLE_RECIPES)
def test_no_example_recipe_passes_an_unexpanded_variable(recipe: str) -> None:
    cfg = load_config(EXAMPLE_CONFIG)
    loaded = load_recipe(RECIPES / recipe / "recipe.toml")
    plan = build_plan(cfg, loaded, None)
    argvs = {f"{n.name}: engine": n.launch for n in plan.nodes}
    argvs.update({f"{i.node}: {i.container}": i.launch
                  for s in plan.services for i in s.instances})
    assert argvs
    bad = {where: items for where, argv in argvs.items() if (items := unexpanded(argv))}
    assert bad == {}
