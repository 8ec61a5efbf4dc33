"""sparktui bench on the real Docker test bed, against the test engine streaming at the
rates the test sets: the figures must be the ones it was told to produce.

No figure is held under a time: a loaded machine (six workers on two cores) makes every
latency longer and every rate lower, so a bound there fails a correct reading. What a
load cannot change is asserted instead. The engine sleeps at least TTFT before the first
token and TPOT between tokens, so no latency is below the set one and no rate above the
ideal. And the figures agree with each other by the tool's own definitions, whatever the
load: a request's ITL is (e2e - TTFT) / (tokens - 1), so the means hold
e2e = TTFT + (OUT - 1) x ITL; requests/s x the level's duration is its request count;
tokens/s / requests/s is the tokens of one request; no request outlasts its level. A
wrong reading breaks one of these: a TTFT in ms read as s, tokens/s off by 2x.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
from pathlib import Path

import pytest
from bench_support import bench_setup, kept_runs
from lookalike import Why
from polling import eventually
from site_support import interrupt, sparktui_process, toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): the bench figures are checked against rates
# the test sets; 2-node TP group.
LOOKALIKE = (Why.FIGURES, Why.MULTI_NODE)

TTFT, TPOT, OUT, IN = 0.2, 0.02, 20, 32


@pytest.fixture
def bench_env(tmp_path, monkeypatch):
    return bench_setup(tmp_path, monkeypatch)


def _serve(s, extra: str = "") -> None:
    s.recipe("toy", toy_recipe(extra=extra))
    assert main(s.cli("serve", "toy")) == 0


def _bench(s, tokenizer, *args: str) -> int:
    return main(s.cli("bench", "toy", "--tokenizer", str(tokenizer), "--input-tokens",
                      str(IN), "--output-tokens", str(OUT), *args))


def _processes_naming(folder: Path) -> list[int]:
    """Processes whose command line names ``folder`` (the tool's artifact folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(folder).encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_two_levels_report_the_rates_the_engine_was_told(site, bench_env, tmp_path, capsys):
    s = site(2)
    s.hosts.node("node1").set_engine(ttft=TTFT, tpot=TPOT)
    _serve(s)
    capsys.readouterr()
    assert _bench(s, bench_env, "--concurrency", "1,4", "--requests", "8", "--json") == 0
    printed = json.loads(capsys.readouterr().out)
    [run] = kept_runs(tmp_path)
    assert printed == run
    [path] = (tmp_path / "data" / "sparktui" / "bench").glob("*.json")
    assert path.stat().st_mode & 0o777 == 0o600
    assert [lv["concurrency"] for lv in run["levels"]] == [1, 4]
    one_request = TTFT + (OUT - 1) * TPOT  # seconds, at best
    for lv in run["levels"]:
        c = lv["concurrency"]
        ttft, itl, e2e, seconds = lv["ttft"], lv["itl"], lv["e2e"], lv["duration_seconds"]
        assert (lv["requests"], lv["errors"], lv["partial"]) == (8, 0, False), lv
        # never better than the engine was told
        assert TTFT <= ttft["p50"] <= ttft["p99"] <= e2e["p99"], lv
        assert itl["p50"] >= TPOT * 0.95, itl
        assert one_request <= e2e["p50"] <= e2e["p99"] <= seconds, lv
        ideal = c * OUT / one_request  # tokens/s with c streams always busy
        assert lv["output_tokens_per_second"] <= 1.05 * ideal, (c, lv)
        # the figures agree with each other, in seconds, under any load
        assert e2e["mean"] == pytest.approx(ttft["mean"] + (OUT - 1) * itl["mean"],
                                            rel=0.01), lv
        # every request gave OUT tokens: tokens/s and requests/s agree
        per_request = lv["output_tokens_per_second"] / lv["request_throughput"]
        assert abs(per_request - OUT) / OUT < 0.1, (c, lv)
    assert (run["levels"][1]["output_tokens_per_second"]
            > 2 * run["levels"][0]["output_tokens_per_second"])
    # what was measured
    assert (run["recipe"], run["cluster"], run["nodes"]) == ("toy", "test", ["node1", "node2"])
    assert (run["engine"], run["engine_version"]) == ("vllm", "0.33.0")
    assert run["url"] == f"http://{s.hosts.node('node1').addr}:30011"
    image_id = s.hosts.node("node1").image_id("vllm:test")
    assert run["image_ids"] == {"node1": image_id, "node2": image_id}
    assert [m["node"] for m in run["plan"]] == ["node1", "node2"]
    assert "vllm" in run["plan"][0]["launch"] and run["plan"][0]["env"]
    assert (run["tool"]["name"], run["tool"]["version"]) == ("aiperf", "0.13.0")
    assert run["tool"]["settings"]["concurrency"] == [1, 4]
    assert run["tool"]["argv"][1] == "profile" and run["interrupted"] is False
    assert main(s.cli("bench", "--list")) == 0
    assert run["id"] in capsys.readouterr().out


def test_failed_requests_are_counted_as_errors(site, bench_env, tmp_path, capsys):
    s = site(2)
    assert main(s.cli("bench")) == 2  # nothing serves: refused, nothing run
    assert "nothing serves on cluster 'test'" in capsys.readouterr().err
    # every 4th completion answers 500: 2 of 8
    s.hosts.node("node1").set_engine(ttft=0.02, tpot=0.005, fail_share=0.25)
    _serve(s)
    assert main(s.cli("bench", "other")) == 2
    assert "recipe 'other' does not serve on cluster 'test'; serving: toy" in \
        capsys.readouterr().err
    assert main(s.cli("bench", "--via", "router")) == 2  # no [clusters.router]
    assert "cluster 'test' has no router" in capsys.readouterr().err
    assert kept_runs(tmp_path) == []
    assert _bench(s, bench_env, "--concurrency", "2", "--requests", "8") == 0
    [run] = kept_runs(tmp_path)
    [lv] = run["levels"]
    assert (lv["requests"], lv["errors"]) == (6, 2), lv
    out = capsys.readouterr().out
    assert "errors" in out and out.rstrip().splitlines()[-1].split()[-2:] == ["6", "2"], out


def test_ctrl_c_stops_the_load_and_keeps_what_was_measured(site, bench_env, tmp_path):
    s = site(2)
    s.hosts.node("node1").set_engine(ttft=0.05, tpot=0.02)
    _serve(s)
    # The tool's work folder goes in a temp folder of this test's own (other workers'
    # benches run in parallel), short: aiperf's ZMQ sockets live there, and a pytest
    # tmp_path is longer than a socket path may be.
    work = Path(tempfile.mkdtemp(prefix="sb-", dir="/tmp"))
    before: set[Path] = set()
    proc = sparktui_process(*s.cli("bench", "toy", "--tokenizer", str(bench_env),
                                   "--concurrency", "2,8", "--requests", "300",
                                   "--output-tokens", "20"),
                            env={**os.environ, "TMPDIR": str(work)})

    def ours() -> list[Path]:
        return [p for p in work.glob("sparktui-bench-*") if p not in before]

    def finished() -> int:
        records = [p / "c2" / "profile_export.jsonl" for p in ours()]
        return sum(1 for _ in records[0].open()) if records and records[0].exists() else 0
    try:
        eventually(lambda: finished() >= 6, 120, "six requests finished")
    except AssertionError:
        proc.kill()
        raise AssertionError(proc.communicate()) from None
    code, err = interrupt(proc)
    assert code == 130, err
    [run] = kept_runs(tmp_path)
    assert run["interrupted"] is True
    [lv] = run["levels"]  # the second level never started
    assert lv["concurrency"] == 2 and lv["partial"] is True
    assert 6 <= lv["requests"] < 300 and lv["errors"] == 0, lv
    assert lv["ttft"]["p50"] >= 0.05
    assert not ours(), "the tool's work folder is left"
    assert _processes_naming(work) == [], "the tool is still running"
    assert not list(work.iterdir()), "the tool left files behind"
    work.rmdir()


def test_compare_shows_the_plan_difference_next_to_the_figures(site, bench_env, tmp_path,
                                                               capsys):
    s = site(2)
    s.hosts.node("node1").set_engine(ttft=0.05, tpot=0.01)
    ids = []
    for seqs in ("64", "128"):
        _serve(s, extra=f'args = ["--max-num-seqs", "{seqs}"]')
        assert _bench(s, bench_env, "--concurrency", "1", "--requests", "8") == 0
        ids.append(kept_runs(tmp_path)[-1]["id"])
        assert main(s.cli("stop", "--yes")) == 0
    capsys.readouterr()
    assert main(s.cli("bench", "--compare", *ids)) == 0
    out = capsys.readouterr().out
    launch = [line for line in out.splitlines() if "plan.node1.launch" in line]
    assert launch and "64" in launch[0] and "128" in launch[0], out
    assert "tok/s" in out and "TTFT p50 ms" in out
    assert main(s.cli("bench", "--compare", *ids, "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"what": "plan.node1.launch", "before": "64", "after": "128"} in data["changes"]
    assert [lv["concurrency"] for lv in data["levels"]] == [1]


def test_bench_beside_a_dead_docker_says_unknown_not_nothing_serves(fresh_site, bench_env,
                                                                   capsys):
    """A node whose docker does not answer may be the one serving: bench says what
    serves is unknown, naming the node and what its docker said, and exits 1 (the
    cluster could not be checked), never "nothing serves" (exit 2)."""
    s = fresh_site(2)
    s.hosts.node("node2").docker_down()
    try:
        capsys.readouterr()
        assert main(s.cli("bench")) == 1
        err = capsys.readouterr().err
        assert "nothing serves" not in err, err
        assert "what serves on cluster 'test' is unknown: docker on node2 does not answer: " \
            in err, err
        assert main(s.cli("bench", "toy")) == 1  # a named recipe may serve there too
        err = capsys.readouterr().err
        assert "does not serve" not in err and "docker on node2 does not answer" in err, err
    finally:
        s.hosts.node("node2").docker_up()


def test_bench_of_a_head_that_does_not_answer_says_unknown(site, bench_env, capsys):
    """The head's engine stopped (SIGSTOP; its container still runs, where ``docker
    pause`` would say "paused"): the kernel still accepts the probes' connections and
    nothing answers, so they time out and whether it serves is unknown, never "nothing
    serves"."""
    s = site(2)
    _serve(s)
    pid = s.hosts.node("node1").container_pid("sparktui-toy")
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        capsys.readouterr()
        assert main(s.cli("bench")) == 1
        err = capsys.readouterr().err
        assert "nothing serves" not in err, err
        assert "what serves on cluster 'test' is unknown: the head of toy on node1 did not " \
            "answer (timeout on port 30011)" in err, err
    finally:
        os.kill(pid, signal.SIGCONT)
    assert main(s.cli("stop", "--yes")) == 0
