"""The life of a vLLM or SGLang engine process, close enough to the real ones.

A head loads (``STANDIN_READY_AFTER`` s), then binds its HTTP port: nothing answers
before, as with vLLM, whose API server starts once the model is loaded. In a multi-node
group the head first waits for every worker to join at ``--master-addr:--master-port``
(vLLM) or ``--dist-init-addr`` (SGLang); a worker that loses the head exits 1, as a
torch/NCCL rank does. SGLang serves ``/metrics`` only with ``--enable-metrics``.

Knobs (container env):
  STANDIN_READY_AFTER   seconds to load (default 0.5)
  STANDIN_EXIT_AFTER    exit after N seconds with STANDIN_EXIT_CODE (default 1): a crash
                        while loading when it comes before READY_AFTER
  STANDIN_EXIT_AFTER_READY  the same, N seconds after its first /v1/models answer (the
                        serve saw it ready: a crash after a healthy start, whatever the load)
  STANDIN_MODELS_HANGS   after its first /v1/models answer, the next N are never answered
                        (a busy node whose probe times out once the serve saw it ready)
  STANDIN_ON_SIGTERM    exit (default) | slow:SECONDS (shutdown takes that long) | ignore
  STANDIN_HANG_AFTER    seconds, then HTTP connections are accepted and never answered
  STANDIN_LOG_FLOOD     print N lines at once first (-1: forever)
  STANDIN_LOG_LINE      text of the periodic log line
  STANDIN_LOG_INTERVAL  seconds between periodic lines (default 1)
  STANDIN_ACCESS_LOG=0  no uvicorn access lines
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import threading
import time

from sparktest import http_engine
from sparktest.group import GroupHead, join_group
from sparktest.node import ADDR, bind_host, finish, knobs, opt, out, ts

VLLM_VERSION = "0.33.0"
SGLANG_VERSION = "0.5.23"
MASTER_PORT = "29501"  # vLLM's default --master-port


def on_sigterm(env: dict[str, str]) -> None:
    policy = env.get("STANDIN_ON_SIGTERM", "exit")
    if policy == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stuck in teardown: docker kills it
        return

    def handler(signum, _frame) -> None:
        out(f"INFO {ts()} [launcher.py:80] Shutting down FastAPI HTTP server.")
        if policy.startswith("slow:"):
            time.sleep(float(policy[5:]))
        out("INFO:     Shutting down")
        finish(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def model_name(kind: str, argv: list[str]) -> str:
    name = opt(argv, "--served-model-name")
    if name:
        return name
    if kind == "vllm" and argv and not argv[0].startswith("-"):
        return argv[0]
    return opt(argv, "--model", "--model-path") or "standin-model"


def periodic_line(kind: str, custom: str | None) -> str:
    if custom:
        return custom
    v = knobs("engine.json")
    if kind == "sglang":
        return (f"[{dt.datetime.now():%Y-%m-%d %H:%M:%S}] Decode batch. #running-req: "
                f"{v.get('running', 0)}, #token: 0, token usage: {float(v.get('kv', 0)):.2f}, "
                f"gen throughput (token/s): {float(v.get('gen_tps', 0)):.2f}, "
                f"#queue-req: {v.get('waiting', 0)}")
    return (f"INFO {ts()} [loggers.py:123] Engine 000: Avg prompt throughput: "
            f"{float(v.get('prompt_tps', 0)):.1f} tokens/s, Avg generation throughput: "
            f"{float(v.get('gen_tps', 0)):.1f} tokens/s, Running: {v.get('running', 0)} reqs, "
            f"Waiting: {v.get('waiting', 0)} reqs, GPU KV cache usage: "
            f"{float(v.get('kv', 0)) * 100:.1f}%, Prefix cache hit rate: 0.0%")


def flood(n: int) -> None:
    pad = "x" * 40
    i = 0
    while n < 0 or i < n:
        stop = i + 20000 if n < 0 else min(n, i + 20000)
        prefix = f"INFO {ts()} [flood.py:1] flood line "
        os.write(1, "".join(f"{prefix}{k} {pad}\n" for k in range(i, stop)).encode())
        i = stop


def group_of(kind: str, argv: list[str]) -> tuple[int, int, str | None]:
    """(nnodes, rank, "host:port" of the rendezvous) from the engine's own flags."""
    nnodes = int(opt(argv, "--nnodes") or 1)
    rank = int(opt(argv, "--node-rank") or 0)
    if nnodes <= 1:
        return 1, 0, None
    if kind == "sglang":
        return nnodes, rank, opt(argv, "--dist-init-addr")
    return nnodes, rank, f"{opt(argv, '--master-addr')}:{opt(argv, '--master-port') or MASTER_PORT}"


def run(kind: str, argv: list[str]) -> None:
    """``argv``: the engine's arguments after ``vllm serve`` / ``sglang.launch_server``."""
    env = dict(os.environ)
    on_sigterm(env)
    started = time.time()
    model = model_name(kind, argv)
    nnodes, rank, rendezvous = group_of(kind, argv)
    ready_after = float(env.get("STANDIN_READY_AFTER", 0.5))
    exit_after = float(env["STANDIN_EXIT_AFTER"]) if env.get("STANDIN_EXIT_AFTER") else None
    hang_after = env.get("STANDIN_HANG_AFTER")
    interval = float(env.get("STANDIN_LOG_INTERVAL", 1.0))
    if exit_after is not None:
        threading.Thread(target=_exit_later, args=(started + exit_after, env),
                         daemon=True).start()

    version = SGLANG_VERSION if kind == "sglang" else VLLM_VERSION
    out(f"INFO {ts()} [__init__.py:241] Automatically detected platform cuda.")
    if kind == "sglang":
        out(f"[{dt.datetime.now():%Y-%m-%d %H:%M:%S}] server_args=ServerArgs(model_path="
            f"'{model}', tp_size={opt(argv, '--tp-size') or 1}, nnodes={nnodes}, "
            f"node_rank={rank}, version={version})")
    else:
        out(f"INFO {ts()} [api_server.py:1805] vLLM API server version {version}")
        out(f"INFO {ts()} [utils.py:326] non-default args: {{'model': '{model}'}}")
    head = None
    if nnodes > 1 and rank > 0:
        out(f"INFO {ts()} [parallel_state.py:1134] rank {rank} joining {rendezvous}")
        threading.Thread(target=_heartbeat, args=(rank, interval), daemon=True).start()
        join_group(rendezvous or "", rank)  # returns only when the head goes
        out(f"ERROR {ts()} [multiproc_executor.py:154] Worker proc {rank} died: "
            "NCCL error: remote process exited or there was a network error")
        finish(1)
    if nnodes > 1:
        head = GroupHead(rendezvous or "", nnodes, _worker_gone)
        head.wait_for_workers()
        out(f"INFO {ts()} [parallel_state.py:1134] world size {nnodes}: every rank joined")
    out(f"INFO {ts()} [gpu_model_runner.py:1953] Starting to load model {model}...")
    time.sleep(max(0.0, started + ready_after - time.time()))
    out(f"INFO {ts()} [default_loader.py:262] Loading weights took {ready_after:.2f} seconds")
    port = opt(argv, "--port")
    if port:
        host = bind_host(opt(argv, "--host"))
        mml = int(opt(argv, "--max-model-len", "--context-length") or 131072)
        state = http_engine.EngineState(
            model, kind, ready_at=0.0, max_model_len=mml,
            metrics_enabled=kind != "sglang" or "--enable-metrics" in argv,
            hang_at=started + float(hang_after) if hang_after else None)
        state.models_hangs = int(env.get("STANDIN_MODELS_HANGS") or 0)
        if env.get("STANDIN_EXIT_AFTER_READY"):  # seconds after it was first seen ready
            after = float(env["STANDIN_EXIT_AFTER_READY"])
            state.on_first_models = lambda: threading.Thread(
                target=_exit_later, args=(time.time() + after, env), daemon=True).start()
        try:
            http_engine.serve(host, int(port), state, out)
        except OSError as e:
            out(f"ERROR {ts()} [api_server.py:1850] {e}")
            finish(1)
        out(f"INFO {ts()} [api_server.py:1880] Starting vLLM API server 0 on "
            f"http://{host}:{port}")
        out(f"INFO:     Started server process [{os.getpid()}]")
        out("INFO:     Waiting for application startup.")
        out("INFO:     Application startup complete.")
    flood_n = int(env.get("STANDIN_LOG_FLOOD") or 0)
    if flood_n:
        flood(flood_n)
    while True:
        time.sleep(interval)
        out(periodic_line(kind, env.get("STANDIN_LOG_LINE")))


def _heartbeat(rank: int, interval: float) -> None:
    """A worker's own periodic line (so its log stream has something to carry)."""
    while True:
        time.sleep(interval)
        out(f"INFO {ts()} [multiproc_executor.py:520] worker rank {rank} alive")


def _worker_gone(rank: int) -> None:
    out(f"WARNING {ts()} [shm_broadcast.py:466] rank {rank} on the group went away "
        f"(seen by the head on {ADDR})")


def _exit_later(when: float, env: dict[str, str]) -> None:
    time.sleep(max(0.0, when - time.time()))
    code = int(env.get("STANDIN_EXIT_CODE", 1))
    if code:
        out(f"ERROR {ts()} [core.py:700] EngineCore failed to start.")
        out("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
            "GPU 0 has a total capacity of 119.70 GiB of which 1.02 GiB is free.")
    else:
        out(f"INFO {ts()} [launcher.py:80] Shutting down.")
    finish(code)
