"""Service programs of the test image: etcd, NATS, Mooncake, the exporters, Dynamo.

Each prints its real ready line (for log-regex readiness) and listens on the ports its
command names (``--port N``, ``--x-urls=http://h:N``, ``-a :N``; else the kind's
default), answering any request with HTTP 200; the exporters serve Prometheus text on
/metrics (dcgm figures from the node's gpu.json, like the nvidia-smi of the test image).
``torchrun``, ``data-server`` and ``store-server`` (a site's own programs) idle the
same way. Generic commands (``sh``, ``sleep``, ``python3 -m http.server``) are not
played: they run for real in the container.
Knobs (container env): STANDIN_LISTEN (extra ports, comma separated),
STANDIN_LISTEN_AFTER (s before listening and the ready line, default 0.2),
STANDIN_EXIT_AFTER (s) with STANDIN_EXIT_CODE (default 1).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sparktest.node import NAME, bind_host, finish, knobs, out

# kind -> (default ports, ready log line, metrics port or None)
KINDS = {
    "etcd": ([2379], "ready to serve client requests", None),
    "nats": ([4222], "Server is ready", None),
    "mooncake-master": ([8700], "Master service started on port", None),
    "mooncake-store": ([], "Mooncake store started", None),
    "dcgm-exporter": ([], "Starting webserver", 9401),
    "node-exporter": ([], "Listening on address", 9101),
    "dynamo-frontend": ([8000], "Dynamo frontend listening", None),
    "server": ([], "serving", None),
}
PORT_FLAG = re.compile(r"^--?[\w.-]*port[\w-]*$")
URL_PORT = re.compile(r"^(?:\w+://)?([\w.\-\[\]]*):(\d{2,5})(?:/.*)?$")


def ports_in(argv: list[str]) -> list[tuple[str | None, int]]:
    """(host or None, port) named by the command: `--port 4222`, `--x-urls http://h:2379`."""
    found: list[tuple[str | None, int]] = []
    for i, tok in enumerate(argv):
        flag, eq, value = tok.partition("=")
        if not eq and i + 1 < len(argv):
            value = argv[i + 1]
        if flag.startswith("-") and PORT_FLAG.match(flag) and value.isdigit():
            found.append((None, int(value)))
        elif flag.startswith("-") and (m := URL_PORT.match(value.split(",")[0])):
            found.append((m.group(1) or None, int(m.group(2))))
    return [p for p in dict.fromkeys(found) if 0 < p[1] < 65536]


DCGM_FROM_GPU_JSON = {"DCGM_FI_DEV_GPU_UTIL": ("utilization.gpu", 87),
                      "DCGM_FI_DEV_GPU_TEMP": ("temperature.gpu", 61),
                      "DCGM_FI_DEV_POWER_USAGE": ("power.draw", 142.5),
                      "DCGM_FI_DEV_FB_USED": ("memory.used", 20480)}
MEMINFO = {"MemTotal": 128e9, "MemFree": 60e9, "MemAvailable": 98e9, "Buffers": 1e9,
           "Cached": 30e9, "SReclaimable": 2e9, "SwapTotal": 16e9, "SwapFree": 16e9}


def metrics_text(kind: str, started: float) -> str:
    """Prometheus text like the real exporter's; counters grow with time."""
    if kind == "dcgm-exporter":
        gpu = {k: float(v) for k, v in knobs("gpu.json").items() if isinstance(v, int | float)}
        lines = []
        for name, (field, default) in DCGM_FROM_GPU_JSON.items():
            lines += [f"# HELP {name} {field}.", f"# TYPE {name} gauge",
                      f'{name}{{gpu="0",Hostname="{NAME}"}} {gpu.get(field, default):g}']
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


def serve_metrics(host: str, port: int, kind: str) -> None:
    started = time.time()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = self.path.startswith("/metrics")
            body = (metrics_text(kind, started) if found else "see /metrics\n").encode()
            self.send_response(200 if found else 404)
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


def run(kind: str, argv: list[str]) -> None:
    """Play service ``kind`` whose command line (after the program) is ``argv``."""
    env = os.environ
    signal.signal(signal.SIGTERM, lambda signum, _f: finish(128 + signum))
    extra = [(None, int(p)) for p in env.get("STANDIN_LISTEN", "").split(",")
             if p.strip().isdigit()]
    after = float(env.get("STANDIN_LISTEN_AFTER", 0.2))
    exit_after = float(env["STANDIN_EXIT_AFTER"]) if env.get("STANDIN_EXIT_AFTER") else None
    started = time.time()
    defaults, ready_line, metrics_port = KINDS[kind]
    named = ports_in(argv)
    ports = [*(named or [(None, p) for p in defaults]), *extra]
    out(f"{kind} starting on {NAME}")
    time.sleep(max(0.0, after))
    try:
        if metrics_port is not None:
            host, port = (named or [(None, metrics_port)])[0]
            serve_metrics(bind_host(host), port, kind)
            ports = extra
        for host, port in dict.fromkeys((bind_host(h), p) for h, p in ports):
            listen(host, port)  # etcd names 2379 twice: listen and advertise URLs
    except OSError as e:
        out(f"error: {e}")
        finish(1)
    shown = ",".join(str(p) for _h, p in (ports or named)) or str(metrics_port or 0)
    out(f"{ready_line} on {bind_host(None)}:{shown}")
    while True:
        if exit_after is not None and time.time() >= started + exit_after:
            code = int(env.get("STANDIN_EXIT_CODE", 1))
            out(f"{kind} exiting with code {code}")
            finish(code)
        time.sleep(0.1)
