"""The plan JSON contract: key set, types, and docs/plan-format.md naming every key.

Keys may be added, never renamed: adding one means documenting it (this test
fails until docs/plan-format.md has a row for it); renaming one breaks the
golden files and this key list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from plan_support import DUO, REPO, VLLM_MIN, make_plan

from sparktui.plan.render import render_json

TOP = {"recipe": str, "cluster": str, "engine": str, "runtime": str, "port": int,
       "model": str, "image": str, "image_digest": type(None), "ssh_user": str,
       "nodes": list, "start_order": list, "hf_refs": list, "services": list, "frontend": str}
NODE = {"name": str, "ssh_ip": str, "ssh_port": int, "ib_ip": str, "rank": int, "role": str,
        "local": bool, "container": str, "env": dict, "mounts": list, "before_serve": list,
        "launch": list, "after_stop": list}
HOOK = {"kind": str, "run": str, "on_failure": str, "origin": str}
MOUNT = {"host": str, "container": str, "read_only": bool}
HF_REF = {"placeholder": str, "repo": str, "subfolder": (str, type(None))}

RECIPE = VLLM_MIN + """required_nodes = 2
before_serve = ["true"]
after_stop = [{ script = "restore_dgx_services", on_failure = "warn" }]
args = ["{{draft}}"]
[[extra_mounts]]
host = "/a"
container = "/b"
[[extra_mounts]]
repo = "o/r"
container = "draft"
"""


def _typed(obj: dict, spec: dict) -> None:
    assert list(obj) == list(spec)  # same keys, documented order
    for key, kind in spec.items():
        assert isinstance(obj[key], kind), key
        if kind is int:
            assert not isinstance(obj[key], bool), key


def test_keys_and_types(tmp_path: Path) -> None:
    data = json.loads(render_json(make_plan(tmp_path, DUO, RECIPE)))
    _typed(data, TOP)
    assert len(data["nodes"]) == 2
    for node in data["nodes"]:
        _typed(node, NODE)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in node["env"].items())
        assert all(isinstance(a, str) for a in node["launch"])
        for hook in node["before_serve"] + node["after_stop"]:
            _typed(hook, HOOK)
        for mount in node["mounts"]:
            _typed(mount, MOUNT)
    for ref in data["hf_refs"]:
        _typed(ref, HF_REF)
    assert data["start_order"] == ["beta", "alpha"]


def test_json_is_stable_text(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, DUO, VLLM_MIN + '[env]\nGREETING = "grüß dich"\n')
    text = render_json(plan)
    assert text == render_json(plan) and text.endswith("}\n")
    assert "grüß dich" in text  # UTF-8, not \\u escapes
    assert text.splitlines()[1] == '  "recipe": "demo",'


def test_every_key_is_documented() -> None:
    doc = (REPO / "docs" / "plan-format.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", doc, flags=re.MULTILINE))
    assert set(TOP) | set(NODE) <= documented
    for key in (*HOOK, *MOUNT, *HF_REF):
        assert f"`{key}`" in doc or f'"{key}"' in doc, key
    assert "SPARKTUI_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_plan_golden.py" in doc
