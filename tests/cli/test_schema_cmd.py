"""``sparktui schema config|recipe [-o FILE]``: the JSON Schema, printed or written."""

from __future__ import annotations

import json
import subprocess
import sys

from plan_support import REPO, subprocess_env


def _sparktui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sparktui", *args], cwd=REPO,
                          env=subprocess_env(), capture_output=True, text=True, timeout=120,
                          check=False)


def test_schema_recipe_printed(tmp_path) -> None:
    proc = _sparktui("schema", "recipe")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["properties"]["engine"]["anyOf"][0]["enum"] == ["vllm", "sglang"]
    assert document["additionalProperties"] is False


def test_schema_config_written(tmp_path) -> None:
    out = tmp_path / "config.schema.json"
    proc = _sparktui("schema", "config", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "clusters" in json.loads(out.read_text())["properties"]


def test_schema_to_a_missing_folder_is_a_located_error(tmp_path) -> None:
    out = tmp_path / "no" / "x.json"
    proc = _sparktui("schema", "config", "-o", str(out))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(out) in proc.stderr
