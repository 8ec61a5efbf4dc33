"""Telemetry against the sshd test hosts: figures the fakes were told to produce."""

from __future__ import annotations

import asyncio
import json
import shutil

from lookalike import Why
from polling import eventually
from site_support import toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): set engine figures and nvidia-smi/dcgm
# figures.
LOOKALIKE = (Why.FIGURES, Why.GPU)

KB = 1024


def _hf_toml(path) -> str:
    return f'[mount_aliases]\nhf_cache = "{path}"\n'


def _serve(s) -> None:
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0


def _samples(s, count: int, gap: float, setup=None):
    """``count`` telemetry samples ``gap`` s apart, after one health check."""
    async def go():
        engine = s.engine()
        try:
            await engine.health("test")
            frames = []
            for i in range(count):
                if setup is not None:
                    setup(i)
                frames.append(await engine.telemetry("test"))
                if i < count - 1:
                    await asyncio.sleep(gap)
            return frames, engine._telemetry["test"].channels
        finally:
            await engine.close()
    return asyncio.run(go())


def _meminfo_total() -> float:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return float(line.split()[1]) * KB
    raise AssertionError("no MemTotal")


def test_rates_and_percentiles_match_what_the_fake_engine_was_told(site, tmp_path):
    hf = tmp_path / "hf"
    hf.mkdir()
    s = site(2, extra_toml=_hf_toml(hf))
    head = s.hosts.node("node1")
    # 80% of first tokens at 50 ms, 20% at 600 ms; inter-token 20 ms / 90 ms half and half.
    head.set_engine(running=3, waiting=2, kv=0.42, prompt_tps=400, gen_tps=120, rps=40,
                    ttft=[[0.05, 0.8], [0.6, 0.2]], tpot=[[0.02, 0.5], [0.09, 0.5]])
    for n in s.hosts.nodes:
        n.set_gpu(**{"utilization.gpu": 77, "power.draw": 33.5, "temperature.gpu": 61,
                     "memory.used": "[N/A]"})
    _serve(s)
    frames, channels = _samples(s, 4, 1.0)
    last = frames[-1]
    e = last.engine
    assert e is not None and e.error is None and e.node == "node1"
    assert (e.running, e.waiting, e.kv_cache) == (3, 2, 0.42)
    assert abs(e.gen_tps - 120) / 120 < 0.15, e.gen_tps
    assert abs(e.prompt_tps - 400) / 400 < 0.15, e.prompt_tps
    # histogram_quantile lands in the bucket that holds the value at that rank
    assert 0.04 < e.ttft_p50 <= 0.06, e.ttft_p50
    assert 0.5 < e.ttft_p95 <= 0.75, e.ttft_p95
    assert 0.01 < e.tpot_p50 <= 0.025, e.tpot_p50
    assert 0.075 < e.tpot_p95 <= 0.1, e.tpot_p95
    for f in last.nodes:
        assert f.reachable and f.error is None
        assert (f.gpu_util, f.gpu_power, f.gpu_temp, f.gpu_mem_used) == (77, 33.5, 61, None)
        assert f.mem_total == _meminfo_total()
        assert f.mem_used + f.mem_cache <= f.mem_total
        assert 0 <= f.cpu_pct <= 100 and 0 <= f.mem_pct <= 100
        usage = shutil.disk_usage(hf)
        assert f.disk_total == usage.total // KB * KB
        assert abs(f.disk_free - usage.free) < 64 << 20
        assert f.sources == {"cpu_mem": "proc", "gpu": "nvidia-smi"}
    assert frames[0].nodes[0].cpu_pct is None  # no delta on the first sample
    # one command channel per node per sample, plus the head's /metrics
    assert channels == 4 * (2 + 1)
    history = last.history
    assert len(history["engine.gen_tps"]) == 4 and history["engine.gen_tps"][0] is None
    assert len(history["node2.mem_pct"]) == 4
    assert main(s.cli("stop", "--yes")) == 0


def test_kernel_oom_lines_and_denied_dmesg(site):
    s = site(1)
    node = s.hosts.node("node1")
    log = node.state_dir / "kernel.log"
    log.write_text("2025-06-15T10:00:00,000000+00:00 usb 1-1: new device\n"
                   "2025-06-15T10:01:00,000000+00:00 Out of memory: Killed process 42 (python3)\n")

    def later(i: int) -> None:
        if i == 1:
            with log.open("a") as f:
                f.write("2025-06-15T10:05:00,000000+00:00 NVRM: nvAssertFailed "
                        "NV_ERR_NO_MEMORY\n")
        if i == 3:
            (node.state_dir / "kernel.deny").write_text("")

    frames, _ = _samples(s, 4, 0.3, later)
    first, second = frames[0].nodes[0], frames[1].nodes[0]
    assert first.kernel == ["2025-06-15T10:01:00,000000+00:00 Out of memory: Killed process "
                            "42 (python3)"]
    assert second.kernel[-1].endswith("NV_ERR_NO_MEMORY") and len(second.kernel) == 2
    # the line that was there at the first sample is old news; the new one alerts
    assert [a.kind for a in frames[0].alerts] == []
    assert [(a.kind, a.node) for a in frames[1].active_alerts] == [("kernel_oom", "node1")]
    denied = frames[3].nodes[0]
    assert denied.reachable and denied.mem_total  # the rest of the sample is intact
    if shutil.which("journalctl") is None:
        assert denied.kernel == []


def test_stall_worker_gone_and_kv_alerts_fire_and_clear(site):
    s = site(2)
    cfg = s.config_path
    cfg.write_text("telemetry_stall_seconds = 1\n" + cfg.read_text())
    from sparktui.config.loader import load_config
    s.loaded = load_config(cfg)
    head = s.hosts.node("node1")
    head.set_engine(running=1, waiting=4, kv=0.97, gen_tps=0)
    _serve(s)

    async def go():
        engine = s.engine()
        try:
            await engine.health("test")
            a = await engine.telemetry("test")
            await asyncio.sleep(1.2)
            b = await engine.telemetry("test")  # stalled for > 1 s, KV above 95%
            head.set_engine(gen_tps=80, kv=0.5)
            await asyncio.sleep(0.3)
            await engine.telemetry("test")
            await asyncio.sleep(0.5)
            c = await engine.telemetry("test")  # tokens flow again: both clear
            worker = next(w for w in (await engine.health("test")).workloads
                          if w.role == "worker")
            s.hosts.node(worker.node).run_standin("docker", "rm", "-f", worker.name)
            await engine.health("test")
            d = await engine.telemetry("test")
            return a, b, c, d
        finally:
            await engine.close()

    a, b, c, d = asyncio.run(go())
    assert [x.kind for x in a.active_alerts] == ["kv"]
    kinds = {x.kind: x for x in b.active_alerts}
    assert set(kinds) == {"kv", "stalled"} and kinds["kv"].since == a.alerts[0].since
    assert c.active_alerts == []
    cleared = {x.kind: x for x in c.alerts}
    assert cleared["stalled"].cleared is not None and cleared["kv"].cleared is not None
    gone = [x for x in d.active_alerts if x.kind == "worker_gone"]
    assert [(x.node, str(x.detail)) for x in gone] == [("node2", "no container")]
    assert main(s.cli("stop", "--yes")) == 0


def test_top_json_prints_one_line_per_sample_and_health_json_has_figures(site, capsys):
    s = site(2)
    s.hosts.node("node1").set_engine(running=2, gen_tps=50)
    _serve(s)
    capsys.readouterr()
    assert main(s.cli("top", "--json", "--count", "3", "--interval", "0.5")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    frames = [json.loads(line) for line in lines]
    assert [n["node"] for n in frames[-1]["nodes"]] == ["node1", "node2"]
    assert frames[-1]["engine"]["running"] == 2 and frames[-1]["engine"]["gen_tps"] > 0
    assert frames[0]["at"] < frames[1]["at"] < frames[2]["at"]
    assert {f["interval"] for f in frames} == {0.5}  # --interval, not the config's
    assert main(s.cli("health", "--json", "--deep")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["serving"] is True
    tele = data["telemetry"]
    assert tele["engine"]["gen_tps"] > 0 and tele["nodes"][0]["cpu_pct"] is not None
    assert data["deep"]["ok"] is True and data["deep"]["status"] == 200
    assert main(s.cli("top", "--count", "1")) == 0
    out = capsys.readouterr().out
    assert "node1" in out and "engine node1:30011" in out
    assert main(s.cli("stop", "--yes")) == 0
    assert main(s.cli("health", "--deep")) == 0  # nothing serves: an answer, not a failure
    assert "nothing serves" in capsys.readouterr().out


def test_unreachable_node_is_a_row_not_a_failure(fresh_site):
    s = fresh_site(2)
    s.hosts.node("node2").kill()
    frames, _ = _samples(s, 2, 0.3)
    rows = {n.node: n for n in frames[-1].nodes}
    assert rows["node1"].reachable and rows["node1"].mem_total
    assert not rows["node2"].reachable and rows["node2"].error
    assert frames[-1].history["node2.mem_pct"] == (None, None)


def _exporter(node, kind: str, image: str, port: int) -> None:
    labels = {"recipe": "toy", "cluster": "test", "node": node.name, "rank": "0",
              "role": "service", "service": kind, "service_index": "0",
              "service_type": kind, "metrics": f"{kind}:{port}/metrics"}
    argv = ["docker", "run", "-d", "--name", f"sparktui-toy-{kind}-0", "--network", "host"]
    for key, value in labels.items():
        argv += ["--label", f"sparktui.{key}={value}"]
    node.add_image(image)  # with the exporter image's own entrypoint
    got = node.run_standin(*argv, image)
    assert got.returncode == 0, got.stderr


def test_exporter_services_are_read_instead_of_the_command(site):
    s = site(1)
    node = s.hosts.node("node1")
    node.set_gpu(**{"utilization.gpu": 55, "power.draw": 20.0, "temperature.gpu": 50})
    _exporter(node, "dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3", 9401)
    _exporter(node, "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", 9101)
    sampled: list = []

    def from_exporters():
        """Two samples, both from the exporters (the CPU share is a delta of two of their
        readings); the exporters start late under load."""
        sampled[:] = [_samples(s, 2, 0.5)]
        return all(fr.nodes[0].sources == {"cpu_mem": "node-exporter", "gpu": "dcgm-exporter"}
                   for fr in sampled[0][0])

    eventually(from_exporters, 60, "both samples from the exporters",
               explain=lambda: str(sampled[0][0][-1].nodes[0].sources))
    frames, channels = sampled[0]
    f = frames[-1].nodes[0]
    assert f.mem_total == 128e9 and f.mem_available == 98e9  # the exporter's, not /proc's
    assert abs(f.cpu_pct - 25.0) < 2  # its counters grow 1/4 user, 3/4 idle (2 decimals)
    assert (f.gpu_util, f.gpu_power, f.gpu_temp) == (55, 20.0, 50)
    assert channels == 2 * 3  # the command (df, kernel log) and the two scrapes
