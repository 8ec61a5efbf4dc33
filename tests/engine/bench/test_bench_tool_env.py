"""The benchmark tool's environment on an operator's machine set offline for Hugging
Face (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE): aiperf 0.13 fails every level with a local
tokenizer folder under either, so a folder gets the tool without them; a tokenizer
named on the Hub keeps them. The tool here is a script that writes the environment it
was started with next to a real aiperf 0.13 export, so the level reads back as a
result. (That aiperf itself reads the folder without them is the bench tests' part.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bench_support import DATA

from sparktui.engine.bench.run import OFFLINE_VARIABLES, run_levels, tool_env
from sparktui.engine.bench.target import BenchTarget
from sparktui.plan.bench.aiperf import EXPORT, BenchSettings

TOOL = """#!{python}
import json, os, shutil, sys
args = sys.argv[1:]
folder = args[args.index("--artifact-dir") + 1]
os.makedirs(folder, exist_ok=True)
shutil.copy({export!r}, os.path.join(folder, {name!r}))
with open({seen!r}, "a") as f:
    f.write(json.dumps({{k: os.environ.get(k) for k in {names!r}}}) + "\\n")
"""


def _target() -> BenchTarget:
    return BenchTarget(recipe="toy", cluster="test", nodes=["node1"], head="node1",
                       host="127.0.0.1", port=9, model="org/toy", engine="vllm",
                       image="vllm:test")


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    for name in OFFLINE_VARIABLES:
        monkeypatch.setenv(name, "1")
    seen = tmp_path / "seen.jsonl"
    script = tmp_path / "fake-aiperf"
    script.write_text(TOOL.format(python=sys.executable, seen=str(seen), name=EXPORT,
                                  names=OFFLINE_VARIABLES,
                                  export=str(DATA / "aiperf-0.13-export.json")))
    script.chmod(0o755)
    return str(script), seen


@pytest.mark.parametrize(("local", "offline"), [(True, None), (False, "1")])
async def test_a_local_tokenizer_folder_runs_the_tool_without_the_offline_switches(
        tool, tmp_path, local, offline):
    script, seen = tool
    folder = tmp_path / "tokenizer"
    folder.mkdir()
    settings = BenchSettings(concurrency=(1, 2), requests=8,
                             tokenizer=str(folder) if local else "org/toy")
    levels, interrupted, _ = await run_levels(script, settings, _target(), lambda _: None)
    assert [lv.concurrency for lv in levels] == [1, 2] and not interrupted
    told = [json.loads(line) for line in seen.read_text().splitlines()]
    assert told == [dict.fromkeys(OFFLINE_VARIABLES, offline)] * 2


def test_only_an_existing_folder_counts_as_local(tmp_path):
    (tmp_path / "file").write_text("")
    environ = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/bin"}
    assert tool_env(BenchSettings(tokenizer=str(tmp_path)), environ) == {"PATH": "/bin"}
    for name in ("org/toy", str(tmp_path / "missing"), str(tmp_path / "file"), None):
        assert tool_env(BenchSettings(tokenizer=name), environ) == environ
