"""sparktui against a real vLLM (issue 34): vLLM 0.32's CPU build serving a tiny random
Llama in a container on a test node (real_vllm_support.py), started once by ``serve`` and
shared by these tests, which run on one worker in this order; the last one stops it.

What the look-alike engine cannot prove and this does: that serve's readiness gate holds
for an engine that listens only after a minute of loading, that sparktui reads vLLM's
own /metrics (names, labels, histograms) into figures under a real load, that the deep
check's completion is one vLLM accepts, that aiperf's load and SMG's routing work with
the real server, and that restart and stop end the engine's processes (API server and
engine core).
No test asserts a duration: readiness and figures are waited for, never timed.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request

from bench_support import bench_setup, kept_runs
from polling import eventually
from real_vllm_support import GROUP, RECIPE, ROUTER_KEY

from sparktui.cli import main
from sparktui.engine.telemetry.metrics import sample_values

pytestmark = GROUP
MODEL = "sparktest/tiny-llama"
ENGINE_PROCESSES = "EngineCore|vllm serve"  # the API server and its engine core


def _get(url: str, key: str | None = None):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                timeout=60) as answer:
        return answer.read().decode()


def _complete(url: str, max_tokens: int = 24, key: str | None = None) -> dict:
    body = json.dumps({"model": MODEL, "prompt": "w5 w6 w7 w8", "max_tokens": max_tokens,
                       "ignore_eos": True}).encode()
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(f"{url}/v1/completions", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=300) as answer:
        return json.load(answer)


def test_serve_returns_when_the_real_engine_answers(real_vllm, capsys):
    engine = real_vllm.served()
    # The gate: serve returned, so the engine answers now, without a wait (vLLM listens
    # only once the model is loaded: a gate that let serve return early fails here).
    models = json.loads(_get(f"{engine.url}/v1/models"))
    assert [m["id"] for m in models["data"]] == [MODEL]
    container = engine.node.containers()[f"sparktui-{RECIPE}"]
    assert container["State"]["Status"] == "running"
    with capsys.disabled():
        print(f"\nreal vLLM: serve to ready {engine.start_to_ready:.1f} s")


def test_health_and_the_deep_check_on_the_real_engine(real_vllm, capsys):
    engine = real_vllm.served()
    assert main(engine.site.cli("health", "--json", "--deep")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["serving"] is True
    deep = data["deep"]
    assert (deep["ok"], deep["status"], deep["error"]) == (True, 200, None), deep
    assert main(engine.site.cli("health", "--deep")) == 0
    out = capsys.readouterr().out
    assert MODEL in out, out


def _telemetry(site, stop: threading.Event, frames: list) -> None:
    async def go():
        cluster = site.engine()
        try:
            await cluster.health("test")
            while not stop.is_set():
                frames.append(await cluster.telemetry("test"))
                await asyncio.sleep(0.5)
        finally:
            await cluster.close()
    asyncio.run(go())


def test_figures_from_vllms_own_metrics_under_a_real_load(real_vllm):
    engine = real_vllm.served()
    text = _get(f"{engine.url}/metrics")
    names = {name for name in sample_values(text) if name.startswith("vllm:")}
    assert "vllm:generation_tokens_total" in names and "vllm:num_requests_running" in names
    before = sample_values(text)["vllm:generation_tokens_total"]

    stop, frames = threading.Event(), []
    sampler = threading.Thread(target=_telemetry, args=(engine.site, stop, frames))
    sampler.start()
    done: list[dict] = []
    try:
        # Load until a sample has seen tokens generated and a first-token latency: two
        # streams of completions, as long as it takes on this machine.
        def load() -> None:
            while not stop.is_set():
                done.append(_complete(engine.url))

        clients = [threading.Thread(target=load) for _ in range(2)]
        for c in clients:
            c.start()
        eventually(lambda: any(f.engine and f.engine.gen_tps and f.engine.ttft_p50
                               for f in frames), 600, "a sample with tokens/s and TTFT",
                   every=0.5, explain=lambda: repr(frames[-1:]))
    finally:
        stop.set()
        for c in clients:
            c.join()
        sampler.join()
    busy = next(f.engine for f in frames if f.engine and f.engine.gen_tps and f.engine.ttft_p50)
    assert busy.error is None and busy.node == "node1"
    assert busy.gen_tps > 0 and busy.ttft_p50 > 0 and busy.kv_cache is not None
    # every completion gave its 24 tokens, and vLLM counted each of them
    assert done and all(d["usage"]["completion_tokens"] == 24 for d in done)
    after = sample_values(_get(f"{engine.url}/metrics"))["vllm:generation_tokens_total"]
    assert after - before == 24 * len(done)


def test_bench_through_aiperf_against_the_real_engine(real_vllm, tmp_path, monkeypatch,
                                                      capsys):
    engine = real_vllm.served()
    bench_setup(tmp_path, monkeypatch)
    from hosts.testimage.real_vllm import model_dir

    assert main(engine.site.cli(
        "bench", RECIPE, "--via", "head", "--tokenizer", str(model_dir()),
        "--input-tokens", "16", "--output-tokens", "16", "--concurrency", "2",
        "--requests", "6", "--json")) == 0
    printed = json.loads(capsys.readouterr().out)
    [run] = kept_runs(tmp_path)
    assert printed == run
    [level] = run["levels"]
    assert (level["requests"], level["errors"]) == (6, 0), level
    assert level["output_tokens_per_second"] > 0 and level["ttft"]["p50"] > 0
    assert (run["engine"], run["engine_version"]) == ("vllm", "0.32.0")
    assert run["url"] == engine.url


def test_smg_routes_to_the_real_engine(real_vllm):
    engine = real_vllm.served()
    if not engine.router:
        from hosts.testimage import router as router_image

        router_image.required()
    models = json.loads(_get(f"{engine.router_url}/v1/models", ROUTER_KEY))
    assert [m["id"] for m in models["data"]] == [MODEL]
    answer = _complete(engine.router_url, max_tokens=8, key=ROUTER_KEY)
    assert answer["model"] == MODEL and answer["usage"]["completion_tokens"] == 8


def test_restart_replaces_the_real_engine_and_ends_the_old_ones_processes(real_vllm,
                                                                          capsys):
    """Restart's teardown on a real engine: the old API server and engine core are gone
    (a look-alike that exits at once cannot show an engine core left behind), a new
    container serves, and restart returned only once it answers (the gate again)."""
    engine = real_vllm.served()
    node = engine.node
    name = f"sparktui-{RECIPE}"
    before = {pid for pid, _ in node.processes(ENGINE_PROCESSES)}
    old_id = node.containers()[name]["Id"]
    assert before, "the engine's processes before restart"
    rc = main(engine.site.cli("restart", RECIPE, "--yes"))
    assert rc == 0, capsys.readouterr()
    models = json.loads(_get(f"{engine.url}/v1/models"))
    assert [m["id"] for m in models["data"]] == [MODEL]
    assert node.containers()[name]["Id"] != old_id
    after = {pid for pid, _ in node.processes(ENGINE_PROCESSES)}
    assert after and not (before & after), (before, after)
    assert _complete(engine.url, max_tokens=4)["usage"]["completion_tokens"] == 4


def test_stop_ends_the_real_engine_and_its_processes(real_vllm, capsys):
    engine = real_vllm.served()
    node = engine.node
    assert node.processes(ENGINE_PROCESSES), "the engine's processes before stop"
    assert main(engine.site.cli("stop", "--yes")) == 0
    assert f"sparktui-{RECIPE}" not in node.containers()
    assert node.processes(ENGINE_PROCESSES) == []
