"""The life of a stand-in *service* container (labelled sparktui.role=service, or a known
service image): etcd, NATS, Mooncake master/store, the dcgm/node exporters, or a generic
command run as a host process.

Known kinds print their real startup lines (for log-regex readiness) and listen on their
TCP ports on the node's own address ($SPARKTUI_NODE_ADDR); exporters serve Prometheus
text on /metrics (dcgm figures from the node's gpu.json, like the nvidia-smi stand-in).
A generic command runs on the host when its program is a plain shell tool
(`sleep`, `sh -c 'exit 3'`), its exit code becoming the container's; any other
program (torchrun, python3 -m http.server 8080) idles, answering HTTP on the ports
its command names.
Knobs (container env, -e):
  STANDIN_LISTEN        extra ports to listen on, comma separated (a generic service too)
  STANDIN_LISTEN_AFTER  seconds before listening / printing the ready line (default 0.2)
  STANDIN_EXIT_AFTER    exit after N seconds with STANDIN_EXIT_CODE (default 1)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# kind -> (default ports, ready log line, metrics port or None)
KINDS = {
    "etcd": ([2379], "ready to serve client requests", None),
    "nats": ([4222], "Server is ready", None),
    "mooncake-master": ([8700], "Master service started on port", None),
    "mooncake-store": ([], "Mooncake store started", None),
    "dcgm-exporter": ([], "Starting webserver", 9401),
    "node-exporter": ([], "Listening on address", 9101),
}
HOST_PROGRAMS = {"sh", "bash", "sleep", "true", "false", "echo", "env", "cat", "nvidia-smi"}
PORT_FLAG = re.compile(r"^--?[\w.-]*port[\w-]*$")
URL_PORT = re.compile(r"^(?:\w+://)?[\w.\-\[\]]*:(\d{2,5})(?:/.*)?$")


def kind_of(image: str, toks: list[str]) -> str | None:
    words = " ".join([image, *toks[:2]]).lower()
    for kind, keys in (("dcgm-exporter", ("dcgm",)), ("node-exporter", ("node-exporter",
                       "node_exporter")), ("mooncake-master", ("mooncake_master",
                       "mooncake-master")), ("mooncake-store", ("mooncake",)),
                       ("etcd", ("etcd",)), ("nats", ("nats",))):
        if any(k in words for k in keys):
            return kind
    return None


def ports_in(toks: list[str]) -> list[int]:
    """Ports named by the command: `--port 4222`, `--rpc_port=8700`, `--x-urls http://h:2379`."""
    found: list[int] = []
    for i, tok in enumerate(toks):
        if tok == "http.server" and i + 1 < len(toks) and toks[i + 1].isdigit():
            found.append(int(toks[i + 1]))
        flag, eq, value = tok.partition("=")
        if not eq and i + 1 < len(toks):
            value = toks[i + 1]
        if flag.startswith("-") and PORT_FLAG.match(flag) and value.isdigit():
            found.append(int(value))
        elif flag.startswith("-") and (m := URL_PORT.match(value.split(",")[0])):
            found.append(int(m.group(1)))
    return [p for p in dict.fromkeys(found) if 0 < p < 65536]


DCGM_FROM_GPU_JSON = {"DCGM_FI_DEV_GPU_UTIL": ("utilization.gpu", 87),
                      "DCGM_FI_DEV_GPU_TEMP": ("temperature.gpu", 61),
                      "DCGM_FI_DEV_POWER_USAGE": ("power.draw", 142.5),
                      "DCGM_FI_DEV_FB_USED": ("memory.used", 20480)}
MEMINFO = {"MemTotal": 128e9, "MemFree": 60e9, "MemAvailable": 98e9, "Buffers": 1e9,
           "Cached": 30e9, "SReclaimable": 2e9, "SwapTotal": 16e9, "SwapFree": 16e9}


def gpu_values() -> dict[str, float]:
    """The node's gpu.json (the nvidia-smi stand-in's knobs), numbers only."""
    path = os.path.join(os.environ.get("SPARKTUI_NODE_STATE", "."), "gpu.json")
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def metrics_text(kind: str, node: str, started: float) -> str:
    """Prometheus text like the real exporter's; counters grow with time."""
    if kind == "dcgm-exporter":
        gpu = gpu_values()
        lines = []
        for name, (field, default) in DCGM_FROM_GPU_JSON.items():
            lines += [f"# HELP {name} {field}.", f"# TYPE {name} gauge",
                      f'{name}{{gpu="0",Hostname="{node}"}} {gpu.get(field, default):g}']
        return "\n".join(lines) + "\n"
    up = max(0.0, time.time() - started)
    lines = ["# HELP node_load1 1m load average.", "# TYPE node_load1 gauge", "node_load1 0.42",
             "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.",
             "# TYPE node_cpu_seconds_total counter"]
    for cpu in range(4):
        lines += [f'node_cpu_seconds_total{{cpu="{cpu}",mode="idle"}} {1000 + up * 0.75:.2f}',
                  f'node_cpu_seconds_total{{cpu="{cpu}",mode="user"}} {100 + up * 0.25:.2f}']
    for key, value in MEMINFO.items():
        name = f"node_memory_{key}_bytes"
        lines += [f"# HELP {name} Memory information field {key}_bytes.",
                  f"# TYPE {name} gauge", f"{name} {value:.6g}"]
    return "\n".join(lines) + "\n"


def serve_metrics(host: str, port: int, kind: str, node: str) -> None:
    started = time.time()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = (metrics_text(kind, node, started) if self.path.startswith("/metrics")
                    else "see /metrics\n").encode()
            self.send_response(200 if self.path.startswith("/metrics") else 404)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()


def listen(host: str, port: int) -> None:
    """Answer any request with 200 "ok": a TCP and an HTTP readiness probe both pass."""
    def answer(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(2)
            with contextlib.suppress(OSError):
                conn.recv(4096)
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: 3\r\n\r\nok\n")

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)

    def loop() -> None:
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()


def is_service(rec: dict, toks: list[str]) -> bool:
    role = (rec.get("labels") or {}).get("sparktui.role")
    return role == "service" or (role is None and kind_of(rec.get("image", ""), toks) is not None)


def run(rec: dict, argv: list[str], toks: list[str], out: Callable[[str], None],
        finish: Callable[[int], None]) -> None:
    """``argv``: the container's command as given; ``toks``: split further, for ports."""
    env = rec.get("env", {})
    kind = kind_of(rec.get("image", ""), toks)
    host = os.environ.get("SPARKTUI_NODE_ADDR", "127.0.0.1")
    node = os.environ.get("SPARKTUI_NODE_NAME", "node")
    extra = [int(p) for p in env.get("STANDIN_LISTEN", "").split(",") if p.strip().isdigit()]
    after = float(env.get("STANDIN_LISTEN_AFTER", 0.2))
    exit_after = float(env["STANDIN_EXIT_AFTER"]) if env.get("STANDIN_EXIT_AFTER") else None
    started = time.time()
    if kind is None:
        name = os.path.basename(argv[0]) if argv else ""
        program = shutil.which(argv[0]) if name in HOST_PROGRAMS else None
        if program is not None and not extra:
            out(f"standin: running {' '.join(argv)}")
            code = subprocess.run(argv, stdin=subprocess.DEVNULL, check=False).returncode
            finish(code if code >= 0 else 128 - code)
        out(f"standin: {' '.join(toks) or '(no command)'}: idling as a service")
    defaults, ready_line, metrics_port = KINDS.get(kind or "", ([], "service started", None))
    named = ports_in(toks)
    ports = [*(named or defaults), *extra]
    out(f"{kind or 'service'} starting on {node} ({host})")
    time.sleep(max(0.0, after))
    try:
        if metrics_port is not None:
            serve_metrics(host, (named or [metrics_port])[0], kind or "", node)
            ports = extra
        for port in dict.fromkeys(ports):
            listen(host, port)
    except OSError as e:
        out(f"error: {e}")
        finish(1)
    out(f"{ready_line} on {host}:{','.join(map(str, ports or named or [metrics_port or 0]))}")
    while True:
        if exit_after is not None and time.time() >= started + exit_after:
            code = int(env.get("STANDIN_EXIT_CODE", 1))
            out(f"{kind or 'service'} exiting with code {code}")
            finish(code)
        time.sleep(0.1)
