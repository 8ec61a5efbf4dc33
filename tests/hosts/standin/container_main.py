"""The process of one stand-in container: plays a vLLM/SGLang engine's life.

Started detached by `docker run`; stdout/stderr go to containers/<name>.log and the
exit code is written to containers/<name>.exit. Service containers (etcd, NATS, exporters,
generic commands) play their own life instead: see service_main.py.
Knobs (container env, set with -e):
  STANDIN_READY_AFTER   seconds before /v1/models etc. answer 200 (default 0.5)
  STANDIN_EXIT_AFTER    exit after N seconds with STANDIN_EXIT_CODE (default 1)
  STANDIN_LOG_FLOOD     print N lines as fast as possible first (-1: forever)
  STANDIN_LOG_LINE      text of the periodic log line
  STANDIN_LOG_INTERVAL  seconds between periodic lines (default 1)
  STANDIN_LOG_MAX_BYTES truncate the log when it grows past this (default 256 MiB)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shlex
import signal
import sys
import threading
import time

import fake_engine
import service_main
from dockersim import container_paths, read_json, state_dir, write_json

LOCK = threading.Lock()


def ts() -> str:
    return dt.datetime.now().strftime("%m-%d %H:%M:%S")


def out(line: str) -> None:
    with LOCK:
        os.write(1, (line + "\n").encode())


def finish(name: str, code: int) -> None:
    with contextlib.suppress(OSError):
        write_json(container_paths(name)["exit"], {"code": code, "finished": time.time()})
    os._exit(code)


def tokens(cmd: list[str]) -> list[str]:
    flat: list[str] = []
    for arg in cmd:
        if " " in arg:
            try:
                flat.extend(shlex.split(arg))
                continue
            except ValueError:
                pass
        flat.append(arg)
    return flat


def opt(toks: list[str], *names: str) -> str | None:
    for i, t in enumerate(toks):
        for n in names:
            if t == n and i + 1 < len(toks):
                return toks[i + 1]
            if t.startswith(n + "="):
                return t.split("=", 1)[1]
    return None


def engine_args(toks: list[str]) -> list[str]:
    """The tokens from the server launch on (`vllm serve`, `sglang.launch_server`, ...), so
    that e.g. `ray start --head --port=6379 && vllm serve m --port 8000` yields 8000."""
    for i, t in enumerate(toks):
        if t == "serve" or t.endswith(("launch_server", "api_server")):
            return toks[i:]
    return toks


def engine_port(rec: dict, toks: list[str]) -> int | None:
    if (opt(toks, "--node-rank") or "0") != "0":
        return None  # only rank 0 of a multi-node sglang serves HTTP
    port = opt(toks, "--port")
    for p in rec.get("ports", []):
        if port is None or p["container"] == port:
            return int(p["host"])
    return int(port) if port and port.isdigit() else None


def model_name(toks: list[str]) -> str:
    name = opt(toks, "--served-model-name")
    if name:
        return name
    if "serve" in toks:
        i = toks.index("serve")
        if i + 1 < len(toks) and not toks[i + 1].startswith("-"):
            return toks[i + 1]
    return opt(toks, "--model", "--model-path") or "standin-model"


def watchdog(name: str) -> None:
    """Exit if the test run that owns this cluster is gone (never outlive pytest)."""
    owner = read_json(state_dir().parent / "owner.json", {}) or {}
    while True:
        time.sleep(1)
        pid = owner.get("pid")
        gone = not state_dir().exists() or (pid and not os.path.exists(f"/proc/{pid}"))
        if gone or not container_paths(name)["json"].exists():
            os._exit(137)


def flood(n: int, max_bytes: int) -> None:
    pad = "x" * 40
    i = 0
    while n < 0 or i < n:
        stop = i + 20000 if n < 0 else min(n, i + 20000)
        prefix = f"INFO {ts()} [flood.py:1] flood line "
        os.write(1, "".join(f"{prefix}{k} {pad}\n" for k in range(i, stop)).encode())
        i = stop
        if os.fstat(1).st_size > max_bytes:
            os.ftruncate(1, 0)


def periodic_line(kind: str, custom: str | None) -> str:
    if custom:
        return custom
    v = read_json(state_dir() / "engine.json", {}) or {}
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


def main(name: str) -> None:
    rec = read_json(container_paths(name)["json"]) or {}
    env = rec.get("env", {})
    started = time.time()

    def on_term(signum, _frame) -> None:
        out(f"INFO {ts()} [launcher.py:80] Shutting down FastAPI HTTP server.")
        finish(name, 128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    threading.Thread(target=watchdog, args=(name,), daemon=True).start()

    argv = [*(rec.get("entrypoint") or []), *rec.get("cmd", [])]
    all_toks = tokens(argv)
    if service_main.is_service(rec, all_toks):
        service_main.run(rec, argv, all_toks, out, lambda code: finish(name, code))
    kind = "sglang" if any("sglang" in t for t in all_toks) else "vllm"
    toks = engine_args(all_toks)
    model = model_name(toks)
    port = engine_port(rec, toks)
    ready_after = float(env.get("STANDIN_READY_AFTER", 0.5))
    exit_after = float(env["STANDIN_EXIT_AFTER"]) if env.get("STANDIN_EXIT_AFTER") else None
    interval = float(env.get("STANDIN_LOG_INTERVAL", 1.0))

    out(f"INFO {ts()} [__init__.py:241] Automatically detected platform cuda.")
    out(f"INFO {ts()} [api_server.py:1805] vLLM API server version 0.10.1.1")
    out(f"INFO {ts()} [utils.py:326] non-default args: {{'model': '{model}', 'port': {port}}}")
    out(f"INFO {ts()} [gpu_model_runner.py:1953] Starting to load model {model}...")
    out(f"INFO {ts()} [default_loader.py:262] Loading weights took 0.42 seconds")
    if port:
        mml = int(opt(toks, "--max-model-len", "--context-length") or 131072)
        state = fake_engine.EngineState(model, kind, str(state_dir()), started + ready_after, mml)
        host = os.environ.get("SPARKTUI_NODE_ADDR", "127.0.0.1")
        try:
            fake_engine.serve(host, port, state, out)
        except OSError as e:
            out(f"ERROR {ts()} [api_server.py:1850] {e}")
            out("OSError: [Errno 98] Address already in use" if e.errno == 98 else str(e))
            finish(name, 1)
        out(f"INFO {ts()} [api_server.py:1880] Starting vLLM API server 0 on http://{host}:{port}")
        out(f"INFO:     Started server process [{os.getpid()}]")
        out("INFO:     Waiting for application startup.")
    flood_n = int(env.get("STANDIN_LOG_FLOOD") or 0)
    if flood_n:
        flood(flood_n, int(env.get("STANDIN_LOG_MAX_BYTES") or 256 << 20))
    announced = False
    next_line = time.time() + interval
    while True:
        now = time.time()
        if port and not announced and now >= started + ready_after:
            out("INFO:     Application startup complete.")
            announced = True
        if exit_after is not None and now >= started + exit_after:
            code = int(env.get("STANDIN_EXIT_CODE", 1))
            if code:
                out(f"ERROR {ts()} [core.py:700] EngineCore failed to start.")
                out("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                    "GPU 0 has a total capacity of 119.70 GiB of which 1.02 GiB is free.")
            else:
                out(f"INFO {ts()} [launcher.py:80] Shutting down.")
            finish(name, code)
        if now >= next_line:
            out(periodic_line(kind, env.get("STANDIN_LOG_LINE")))
            next_line = now + interval
        wake = [next_line]
        if exit_after is not None:
            wake.append(started + exit_after)
        if port and not announced:
            wake.append(started + ready_after)
        time.sleep(max(0.005, min(wake) - time.time()))


if __name__ == "__main__":
    with contextlib.suppress(Exception):
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    try:
        main(sys.argv[1])
    except SystemExit:
        raise
    except BaseException as exc:  # report like a crashing engine
        out(f"ERROR {ts()} standin container crashed: {exc!r}")
        finish(sys.argv[1], 1)
