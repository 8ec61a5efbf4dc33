"""What telemetry says it read, against the sshd test hosts: the HF cache's free space
is the figure doctor gives (also before the folder exists), and a GPU tool that gave
nothing is not named as the source of the GPU figures."""

from __future__ import annotations

import asyncio
import json
import shutil

from sparktui.cli import main


def _frame(s):
    async def go():
        engine = s.engine()
        try:
            await engine.health("test")
            return await engine.telemetry("test")
        finally:
            await engine.close()
    return asyncio.run(go())


def test_hf_free_of_a_cache_folder_not_created_yet_is_doctors_figure(site, tmp_path, capsys):
    parent = tmp_path / "models"
    parent.mkdir()
    hf = parent / "hf cache" / "not yet"  # a fresh node: created by the first download
    s = site(1, extra_toml=f'[mount_aliases]\nhf_cache = "{hf}"\n')
    (node,) = _frame(s).nodes
    usage = shutil.disk_usage(parent)
    assert node.disk_free is not None, node  # was None: the dashboard's "HF free -"
    assert abs(node.disk_free - usage.free) < 64 << 20
    assert node.disk_path == str(hf)

    main(s.cli("doctor", "--json"))
    disk = next(c for c in json.loads(capsys.readouterr().out) if c["name"] == "disk")
    free, not_yet = disk["detail"]["params"]["head"], disk["detail"]["params"]["tail"]
    assert not_yet == {"code": "doctor_said.disk_not_yet", "params": {"path": str(hf)}}, disk
    assert abs(free["params"]["free"] - node.disk_free / (1 << 30)) <= 1  # GiB, a number


def test_a_gpu_tool_that_gave_nothing_is_not_the_gpu_source(site, capsys):
    s = site(2)
    s.hosts.node("node2").set_gpu(fail=True)  # nvidia-smi exits 9, prints nothing
    frame = _frame(s)
    rows = {n.node: n for n in frame.nodes}
    assert rows["node1"].sources == {"cpu_mem": "proc", "gpu": "nvidia-smi"}
    assert rows["node2"].gpu_util is None
    assert rows["node2"].sources == {"cpu_mem": "proc", "gpu": None}
    assert main(s.cli("top", "--json", "--count", "1")) == 0
    sample = json.loads(capsys.readouterr().out.splitlines()[-1])
    by_node = {n["node"]: n for n in sample["nodes"]}
    assert by_node["node2"]["sources"]["gpu"] is None
    assert by_node["node1"]["sources"]["gpu"] == "nvidia-smi"
