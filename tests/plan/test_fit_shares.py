"""The shares of a node's memory several recipes' engines claim (pure): the rule, the
words, where a running engine's share and a group's rendezvous come from."""

from __future__ import annotations

from sparktui.engine.workloads.discover import _workload
from sparktui.fmt import format_size
from sparktui.plan.engines.base import rendezvous
from sparktui.plan.fit.settings import argv_share, launch_share
from sparktui.plan.fit.shares import SHARE_LIMIT, Holder, node_shares, share_line
from sparktui.plan.runtime.base import Found

GIB = 1 << 30


def test_the_shares_of_a_node_sum_to_at_most_the_limit():
    assert SHARE_LIMIT == 0.9
    glm = Holder("glm", 0.45, 30000, "sparktui-glm")
    row = node_shares("node1", "qwen", 0.5, [glm], 119 * GIB)
    assert not row.ok and row.total == 0.95
    assert str(share_line(row)) == ("node1: glm holds 0.45 (port 30000) of "
                                    f"{format_size(119 * GIB)}, qwen asks 0.5: 0.95 > 0.9")
    exactly = node_shares("node1", "qwen", 0.45, [glm])
    assert exactly.ok and str(share_line(exactly)).endswith("0.9 <= 0.9")  # no float drift
    assert node_shares("node1", "qwen", 0.95, []).ok  # alone: the fit's question, not this
    two = node_shares("node1", "big", 0.3, [Holder("qwen", 0.3, 30001, "sparktui-qwen"),
                                              Holder("glm", 0.3, 30000, "sparktui-glm")])
    assert str(share_line(two)) == ("node1: glm holds 0.3 (port 30000), qwen holds 0.3 (port "
                               "30001), big asks 0.3: 0.9 <= 0.9")


def test_an_unknown_share_is_never_zero():
    row = node_shares("node1", "qwen", 0.1, [Holder("old", None, 8000, "sparktui-old")])
    assert not row.ok
    assert "old holds an unknown share" in str(share_line(row))
    assert "sparktui-old" in str(share_line(row))


def test_launch_share_label_and_argv():
    assert launch_share("vllm", ["--gpu-memory-utilization", "0.4"], 1) == 0.4
    assert launch_share("vllm", [], 1) == 0.9  # vLLM 0.33's default
    assert launch_share("sglang", ["--mem-fraction-static=0.6"], 1) == 0.6
    assert launch_share("sglang", [], 4) == 0.85  # SGLang's table by TP size
    assert launch_share("vllm", ["--gpu-memory-utilization", "lots"], 1) is None
    assert argv_share(["vllm", "serve", "m", "--gpu-memory-utilization", "0.7"]) == 0.7
    assert argv_share(["vllm", "serve", "m"]) is None


def _found(labels: dict[str, str], argv: tuple[str, ...] = ()) -> Found:
    return Found("sparktui-x", {"recipe": "x", "role": "head", **labels}, "running",
                 "running", argv=argv)


def test_discovery_reads_the_label_then_the_argv():
    assert _workload("n1", "docker", _found({"mem_share": "0.35"})).mem_share == 0.35
    argv = ("vllm", "serve", "m", "--gpu-memory-utilization", "0.6")
    assert _workload("n1", "docker", _found({}, argv)).mem_share == 0.6
    assert _workload("n1", "docker", _found({"mem_share": "0.2"}, argv)).mem_share == 0.2
    assert _workload("n1", "docker", _found({"mem_share": "much"})).mem_share is None
    assert _workload("n1", "docker", _found({"mem_share": "1.5"})).mem_share is None
    assert _workload("n1", "docker", _found({})).mem_share is None


def test_rendezvous_of_a_multi_node_head():
    vllm = ["docker", "run", "img", "vllm", "serve", "m", "--nnodes", "2", "--master-addr",
            "10.0.0.1", "--master-port", "29501"]
    assert rendezvous(vllm, "10.0.0.9") == ("10.0.0.1", 29501)
    sglang = ["python3", "-m", "sglang.launch_server", "--dist-init-addr", "10.0.0.1:29501"]
    assert rendezvous(sglang, "10.0.0.9") == ("10.0.0.1", 29501)
    ray = ["docker", "run", "img", "sh", "-c", "ray start --head --port=6379 && vllm serve m"]
    assert rendezvous(ray, "10.0.0.9") == ("10.0.0.9", 6379)
    assert rendezvous(["vllm", "serve", "m", "--port", "8000"], "10.0.0.9") is None
