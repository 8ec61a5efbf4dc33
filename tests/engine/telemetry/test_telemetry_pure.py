"""Telemetry without hosts: parsers, rates, percentiles, the bounded history, alerts."""

from __future__ import annotations

import math
import shlex
import subprocess

import pytest

from sparktui.engine.status import ClusterHealth, NodeHealth, Workload
from sparktui.engine.telemetry import metrics, nodestats
from sparktui.engine.telemetry.alerts import AlertBook, AlertRules, Condition
from sparktui.engine.telemetry.figures import EngineFigures, NodeFigures
from sparktui.engine.telemetry.history import History, Ring, capacity_for
from sparktui.present.alerts import describe
from sparktui.tui.widgets.spark import sparkline

GIB = 1 << 30

PROC = """\
cpu  1000 0 500 8000 500 0 0 0 0 0
cpu0 500 0 250 4000 250 0 0 0 0 0
intr 12345 0 0
MemTotal:       131072000 kB
MemFree:         10000000 kB
MemAvailable:    40000000 kB
Buffers:          1000000 kB
Cached:          25000000 kB
SReclaimable:     2000000 kB
Shmem:             500000 kB
SwapTotal:       16000000 kB
SwapFree:        15000000 kB
HugePages_Total:        0
"""


def test_proc_stat_and_meminfo_give_cpu_and_the_memory_split():
    raw = nodestats.parse_sample(PROC + "@@sparktui-telemetry@@gpu\n93, 45.50, 61, [N/A]\n"
                                 "@@sparktui-telemetry@@df\nFilesystem 1024-blocks Used "
                                 "Available Capacity Mounted on\n/dev/nvme0n1p2 3900000000 "
                                 "2600000000 1300000000 67% /\n@@sparktui-telemetry@@kernel\n")
    assert raw.cpu == (1500.0, 10000.0)
    later = (1500.0 + 300, 10000.0 + 1000)
    assert nodestats.cpu_percent(raw.cpu, later) == pytest.approx(30.0)
    assert nodestats.cpu_percent(None, later) is None
    split = nodestats.memory_split(raw.mem)
    cache = (1000000 + 25000000 + 2000000) * 1024
    assert split["mem_cache"] == cache
    assert split["mem_used"] == (131072000 - 10000000) * 1024 - cache
    assert split["mem_available"] == 40000000 * 1024
    assert split["mem_pct"] == pytest.approx(100 * (131072000 - 40000000) / 131072000)
    assert split["swap_used"] == 1000000 * 1024
    assert raw.gpu == {"util": 93.0, "power": 45.5, "temp": 61.0, "mem_used": None}
    assert raw.disk == (1300000000 * 1024, 3900000000 * 1024)
    assert raw.kernel == []


def test_missing_tools_leave_their_figures_empty():
    raw = nodestats.parse_sample("@@sparktui-telemetry@@gpu\n@@sparktui-telemetry@@df\n"
                                 "@@sparktui-telemetry@@kernel\n")
    assert (raw.cpu, raw.mem, raw.gpu, raw.disk, raw.kernel) == (None, {}, {}, None, [])


def test_kernel_lines_from_journalctl_drop_the_host_part():
    text = ("2025-06-15T10:00:00+0000 spark1 kernel: Out of memory: Killed process 7 (vllm)\n"
            "2025-06-15T10:00:01,5+00:00 NVRM: NV_ERR_NO_MEMORY\n")
    assert nodestats.parse_kernel(text) == [
        "2025-06-15T10:00:00+0000 Out of memory: Killed process 7 (vllm)",
        "2025-06-15T10:00:01,5+00:00 NVRM: NV_ERR_NO_MEMORY"]


def test_the_sample_command_quotes_the_hf_path_once(tmp_path):
    marker = tmp_path / "pwned"
    hostile = f"/data/hf cache; touch {marker} $(touch {marker})"
    command = nodestats.sample_command(hostile)
    assert f"d={shlex.quote(hostile)};" in command  # then only "$d", quoted
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60,
                          check=True)
    assert not marker.exists()
    # It does not exist: the free space is the filesystem's it would be created on (/).
    assert nodestats.parse_sample(done.stdout).disk is not None
    assert "nvidia-smi" in command and "/proc/stat" in command
    bare = nodestats.sample_command("/hf", proc=False, gpu=False)
    assert "nvidia-smi" not in bare and "/proc/stat" not in bare and "dmesg" in bare


def test_exporters_replace_proc_and_nvidia_smi():
    raw = nodestats.RawNode()
    nodestats.parse_node_exporter(
        '# TYPE node_cpu_seconds_total counter\n'
        'node_cpu_seconds_total{cpu="0",mode="idle"} 80\n'
        'node_cpu_seconds_total{cpu="0",mode="user"} 15\n'
        'node_cpu_seconds_total{cpu="0",mode="iowait"} 5\n'
        '# TYPE node_memory_MemTotal_bytes gauge\nnode_memory_MemTotal_bytes 1000\n'
        '# TYPE node_memory_MemAvailable_bytes gauge\nnode_memory_MemAvailable_bytes 250\n'
        '# TYPE node_memory_MemFree_bytes gauge\nnode_memory_MemFree_bytes 100\n', raw)
    assert raw.cpu == (15.0, 100.0)
    assert nodestats.memory_split(raw.mem)["mem_pct"] == 75.0
    nodestats.parse_dcgm(
        '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 87\n'
        '# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 40.5\n'
        '# TYPE DCGM_FI_DEV_GPU_TEMP gauge\nDCGM_FI_DEV_GPU_TEMP{gpu="0"} 58\n', raw)
    assert raw.gpu == {"util": 87.0, "power": 40.5, "temp": 58.0, "mem_used": None}


def _hist(name: str, bounds: list[float], counts: list[float]) -> str:
    lines = [f"# TYPE {name} histogram"]
    for le, c in zip(bounds, counts, strict=True):
        lines.append(f'{name}_bucket{{le="{le}"}} {c}')
    lines.append(f'{name}_bucket{{le="+Inf"}} {counts[-1]}')
    lines += [f"{name}_count {counts[-1]}", f"{name}_sum 1.0"]
    return "\n".join(lines) + "\n"


def test_rates_and_window_percentiles_from_two_snapshots():
    bounds = [0.1, 0.25, 0.5, 1.0]
    before = metrics.snapshot(
        "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 1000\n"
        + _hist("vllm:time_to_first_token_seconds", bounds, [10, 10, 10, 10]), 0.0)
    after = metrics.snapshot(
        "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total 1500\n"
        + _hist("vllm:time_to_first_token_seconds", bounds, [10, 90, 110, 110]), 2.0)
    assert metrics.rate(before.generation_tokens, after.generation_tokens, 2.0) == 250.0
    assert metrics.rate(1500, 100, 2.0) == 50.0  # a restart counts from zero
    window = metrics.bucket_delta(before.ttft, after.ttft)
    # 100 new: 80 in (0.1, 0.25], 20 in (0.25, 0.5]
    assert metrics.quantile(0.5, window) == pytest.approx(0.1 + 0.15 * 50 / 80)
    assert metrics.quantile(0.95, window) == pytest.approx(0.25 + 0.25 * 15 / 20)
    assert metrics.quantile(0.5, metrics.bucket_delta(after.ttft, after.ttft)) is None
    assert metrics.quantile(0.99, {1.0: 1, math.inf: 10}) == 1.0  # in +Inf: highest bound


def test_the_ring_stays_bounded():
    history = History(interval=2.0)
    assert history.capacity == capacity_for(2.0) == 451  # 15 minutes at 2 s
    for i in range(5000):
        history.add(i * 2.0, {"a.cpu_pct": float(i), "b.cpu_pct": None})
    ring = history.ring("a.cpu_pct")
    assert ring is not None and len(ring) == 451
    assert ring.values()[0] == 5000 - 451 and ring.last() == 4999
    assert len(history.snapshot()["b.cpu_pct"]) == 451
    small = Ring(3)
    for i in range(10):
        small.add(i, i)
    assert small.values() == (7, 8, 9) and small.since(8) == [(8, 8), (9, 9)]


def test_alert_book_fires_once_and_clears_with_times():
    book = AlertBook(keep_cleared=100)
    c = Condition("memory", "spark1", 93.0)
    assert [(a.kind, a.since, a.active) for a in book.update(10, [c])] == [("memory", 10, True)]
    assert book.update(12, [Condition("memory", "spark1", 95.0)])[0].since == 10
    cleared = book.update(14, [])
    assert (cleared[0].since, cleared[0].cleared, cleared[0].value) == (10, 14, 95.0)
    assert book.update(200, []) == []  # forgotten after keep_cleared
    assert "93%" in describe(book.update(300, [c])[0])


def _node(name: str, mem: float, swap: float = 0.0, kernel=()) -> NodeFigures:
    return NodeFigures(name, mem_pct=mem, swap_used=swap, swap_total=8 * GIB,
                       kernel=list(kernel))


def test_rules_memory_swap_kv_stall_with_hysteresis():
    rules, history = AlertRules(stall_seconds=60), History(2.0)

    def run(t, nodes, engine=None):
        for n in nodes:
            history.add(t, {f"{n.node}.swap_used": n.swap_used})
        return sorted(c.key for c in rules.evaluate(t, nodes, engine, history, None))

    assert run(0, [_node("a", 89.0)]) == []
    assert run(2, [_node("a", 91.0)]) == ["memory:a"]
    assert run(4, [_node("a", 89.0)]) == ["memory:a"]  # not clearly below yet
    assert run(6, [_node("a", 80.0)]) == []
    assert run(8, [_node("a", 50, swap=1 * GIB)]) == ["swap:a"]  # grew 1 GiB in a minute
    assert run(80, [_node("a", 50, swap=1 * GIB)]) == []  # flat for a minute
    waiting = EngineFigures("a", 8000, waiting=3, gen_tps=0.0, kv_cache=0.96)
    assert run(100, [], waiting) == ["kv:a"]
    assert run(159, [], waiting) == ["kv:a"]
    assert run(160, [], waiting) == ["kv:a", "stalled:a"]
    flowing = EngineFigures("a", 8000, waiting=3, gen_tps=12.0, kv_cache=0.5)
    assert run(162, [], flowing) == []


def _work(node, role, state="running"):
    return Workload(name=f"w-{node}", recipe="r", cluster="c", node=node, rank=0, role=role,
                    runtime="docker", state=state, port=8000 if role == "head" else None)


def test_rules_worker_gone_only_while_the_head_is_up():
    rules, history = AlertRules(), History(2.0)

    def run(nodes):
        health = ClusterHealth("c", nodes, 0)
        return [(c.node, str(c.detail)) for c in rules.evaluate(0, [], None, history, health)]

    both = [NodeHealth("n1", True, workloads=[_work("n1", "head")]),
            NodeHealth("n2", True, workloads=[_work("n2", "worker")])]
    assert run(both) == []
    gone = [both[0], NodeHealth("n2", True, workloads=[_work("n2", "worker", "exited")])]
    assert run(gone) == [("n2", "")]
    assert run([both[0], NodeHealth("n2", False, error="refused")]) == [("n2", "unreachable")]
    stopped = [NodeHealth("n1", True), NodeHealth("n2", True)]
    assert run(stopped) == []  # head gone too: a stop, not a failure


def test_sparkline_scales_and_marks_missed_samples():
    assert sparkline([0, 50, 100, None], 4, lo=0, hi=100) == "▁▅█ "
    assert sparkline([1, 2], 5) == "   ▁█"
    assert sparkline([], 3) == "   "
    assert sparkline([7, 7], 2) == "▁▁"


@pytest.mark.parametrize(("value", "message"), [
    ("0", "must be at least 0.2 seconds"), ("-1", "must be at least 0.2 seconds"),
    ("nan", "must be at least 0.2 seconds"), ("soon", "'soon' is not a number of seconds")])
def test_top_refuses_an_interval_that_would_hammer_the_nodes(value, message, capsys):
    from sparktui.cli import main

    with pytest.raises(SystemExit) as info:
        main(["top", "--interval", value])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_two_engines_on_one_node_alert_apart_and_sum_in_the_total():
    from sparktui.engine.telemetry.figures import TelemetryFrame, cluster_total

    rules, history = AlertRules(stall_seconds=60), History(2.0)
    full = EngineFigures("a", 8000, waiting=3, gen_tps=0.0, kv_cache=0.96, recipe="glm")
    calm = EngineFigures("a", 8001, running=1, gen_tps=40.0, kv_cache=0.2, recipe="qwen")
    keys = sorted(c.key for c in rules.evaluate(0, [], [full, calm], history, None))
    assert keys == ["kv:a:glm"]
    assert sorted(c.key for c in rules.evaluate(60, [], [full, calm], history, None)) == [
        "kv:a:glm", "stalled:a:glm"]
    total = cluster_total([full, calm])
    assert total is not None and total.gen_tps == 40.0 and total.kv_cache == 0.96
    assert total.running == 1 and total.waiting == 3 and total.recipe == ""
    assert cluster_total([calm]) is calm and cluster_total([]) is None
    frame = TelemetryFrame("c", 0.0, 2.0, [], total, engines=[full, calm])
    assert [e["recipe"] for e in frame.as_dict()["engines"]] == ["glm", "qwen"]
    from sparktui.cli.telemetry_cmds import render_top

    text = render_top(frame)
    assert "engine glm a:8000" in text and "engine qwen a:8001" in text
