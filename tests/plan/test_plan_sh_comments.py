"""The sh renderer itself never lets a name out of its comment line.

The load refuses such names; here the plan is built past the load, so the renderer's
own escaping is what is tested: before, ``mkdir "r/$(printf 'rn\\ntouch pwned')"`` and
``plan -f sh | sh`` created ``pwned`` on the operator's machine.
"""

from __future__ import annotations

from pathlib import Path

from sh_support import recording_bin, run_recorded

from sparktui.config.loaded import LoadedConfig, LoadedRecipe
from sparktui.config.models import Config
from sparktui.config.recipe import Recipe
from sparktui.config.source import SourceRef
from sparktui.plan.build import build_plan
from sparktui.plan.render import render_sh

EVIL = "x\ntouch pwned\n# \r\u2028touch pwned2"


def test_names_with_newlines_stay_in_their_comments(tmp_path: Path) -> None:
    config = Config.model_validate({"ssh_user": "ops", "clusters": [{
        "name": "c" + EVIL, "nodes": [{"name": "n" + EVIL, "ssh_ip": "10.0.0.1", "rank": 0}]}]})
    recipe = Recipe.model_validate({"name": "r" + EVIL, "engine": "vllm",
                                    "docker_image": "img:1", "model": "org/m",
                                    "before_serve": ["true"]})
    plan = build_plan(LoadedConfig(config, SourceRef(None)), LoadedRecipe(recipe, SourceRef(None)))
    script = render_sh(plan, scripts={}, known_hosts_path="~/.config/sparktui/known_hosts")
    comments = [line for line in script.splitlines() if line.startswith("#")]
    assert "# sparktui launch plan: recipe rx\\ntouch pwned\\n# \\r\\u2028touch pwned2 on " \
           "cluster cx\\ntouch pwned\\n# \\r\\u2028touch pwned2" in comments
    work = tmp_path / "work"
    work.mkdir()
    proc, calls = run_recorded(script, recording_bin(tmp_path / "bin"), work)
    assert proc.returncode == 0, proc.stderr
    assert len(calls) == 2  # the hook and the launch, nothing else ran
    assert sorted(p.name for p in work.iterdir()) == [".launch.sh", ".ssh-record"]
