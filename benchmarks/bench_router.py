"""The router's overhead on the real sshd/dockerd test hosts (tests/hosts); prints ratios.

    python benchmarks/bench_router.py [--requests 30] [--tokens 90] [--tpot 0.005]

One recipe serves the test engine on a node; ``[clusters.router]`` puts the real SMG
router (tests/hosts/testimage/router.py; install it first as that module says) in front.
Streaming chat completions alternate between the engine's own address and the
router's, and each gives its time to the first token (first SSE chunk with content)
and its tokens per second after it.

- tokens/s through the router vs straight to the engine (goal: at least 0.95x)
- time to first token added by the router (goal: at most 5 ms, median)
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hosts.cluster import TestCluster  # noqa: E402
from hosts.testimage import router as router_image  # noqa: E402

from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.engine.cluster import ClusterEngine  # noqa: E402
from sparktui.engine.remote.hostkeys import init_host_keys  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402

ENGINE_PORT, ROUTER_PORT, MODEL = 30481, 30480, "org/bench"
RECIPE = f'''engine = "vllm"
docker_image = "vllm:test"
model = "{MODEL}"
port = {ENGINE_PORT}
required_nodes = 1
tensor_parallel_size = 1
entrypoint = ["vllm", "serve"]
'''


def one_stream(host: str, port: int, tokens: int) -> tuple[float, float]:
    """(seconds to the first token, tokens per second after it)."""
    body = json.dumps({"model": MODEL, "stream": True, "max_tokens": tokens,
                       "messages": [{"role": "user", "content": "hi"}]})
    conn = http.client.HTTPConnection(host, port, timeout=120)
    started = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    answer = conn.getresponse()
    first, count = None, 0
    for raw in answer:
        line = raw.strip()
        if not line.startswith(b"data: ") or line == b"data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        text = "".join((c.get("delta") or {}).get("content") or ""
                       for c in chunk.get("choices") or [])
        if text:  # the test engine's tokens are "Hello" and " world" (a proxy may merge)
            count += text.count("Hello") + text.count(" world")
            if first is None:
                first = time.perf_counter()
    ended = time.perf_counter()
    conn.close()
    assert first is not None and count >= tokens, (count, tokens)
    return first - started, (count - 1) / max(ended - first, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=30)
    # 90: the figures before the switch from LiteLLM (which ends a stream that repeats one
    # chunk 100 times in a row, as the test engine's " world" tokens do) used it.
    parser.add_argument("--tokens", type=int, default=90)
    parser.add_argument("--ttft", type=float, default=0.05)
    parser.add_argument("--tpot", type=float, default=0.005)
    args = parser.parse_args()
    if not router_image.available():
        sys.exit(f"The SMG router is not installed: {router_image.INSTALL}")
    with TestCluster(1) as hosts:
        hosts.start()
        node = hosts.nodes[0]
        router_image.install(node)
        node.set_engine(ttft=args.ttft, tpot=args.tpot)
        path = hosts.write_config(hosts.root / "bench-config.toml", extra_toml=(
            f"[clusters.router]\nport = {ROUTER_PORT}\nready_timeout_seconds = 600\n"))
        text = path.read_text()
        path.write_text(f'home_dir = "{node.home}"\n' + text)
        recipe = hosts.root / "recipes" / "bench" / "recipe.toml"
        recipe.parent.mkdir(parents=True)
        recipe.write_text(RECIPE)
        loaded = load_config(path)
        asyncio.run(init_host_keys(loaded.config, loaded.config.clusters[0].nodes))
        plan = build_plan(loaded, load_recipe(recipe), None)

        async def serve() -> list[str]:
            engine = ClusterEngine(loaded.config)
            try:
                result = await engine.serve(plan, lambda event: None)
                return [f"{w.node}: {w.detail}" for w in result.warnings
                        if w.step == "router"] if result.ok else [result.detail]
            finally:
                await engine.close()

        problems = asyncio.run(serve())
        if problems:
            sys.exit(f"serve: {problems}")
        for port in (ENGINE_PORT, ROUTER_PORT):  # warm both paths
            one_stream(node.addr, port, 8)
        direct: list[tuple[float, float]] = []
        routed: list[tuple[float, float]] = []
        for _ in range(args.requests):
            direct.append(one_stream(node.addr, ENGINE_PORT, args.tokens))
            routed.append(one_stream(node.addr, ROUTER_PORT, args.tokens))
    _report(direct, routed, args)


def _report(direct: list[tuple[float, float]], routed: list[tuple[float, float]],
            args: argparse.Namespace) -> None:
    def med(values: list[float]) -> float:
        return statistics.median(values)

    ttft_d, ttft_r = med([d[0] for d in direct]), med([r[0] for r in routed])
    tps_d, tps_r = med([d[1] for d in direct]), med([r[1] for r in routed])
    print(f"{args.requests} streams of {args.tokens} tokens each way "
          f"(engine: ttft {args.ttft * 1000:.0f} ms, tpot {args.tpot * 1000:.1f} ms)")
    print(f"time to first token  direct {ttft_d * 1000:8.1f} ms   router {ttft_r * 1000:8.1f} ms"
          f"   added {(ttft_r - ttft_d) * 1000:+.1f} ms (goal <= 5 ms)")
    print(f"tokens/s             direct {tps_d:8.1f}      router {tps_r:8.1f}"
          f"      ratio {tps_r / tps_d:.3f}x (goal >= 0.95x)")


if __name__ == "__main__":
    main()
