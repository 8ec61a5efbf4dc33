"""A node that lies, on the real test hosts: its head engine is a small HTTP server of
the test's own (run by sparktui's serve in the test image, as any engine is), whose
answers are set by a file in the node's state folder, and ``python -m sparktui`` run
against it with its peak memory read back.

The engine's modes (``hostile_mode(node, mode)``, read on every request):
  names    (default) every answer holds terminal controls: model names, /metrics, the
           start-up log line
  endless  a 200 whose body never ends
  huge     a 100 MB body, its length announced
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HOSTILE = ("\x1b]0;retitled\x07\x1b[2J\x1bc\x1b(0\x9b31m\rover\u2028\x1b]52;c;ZXZpbA==\x07"
           "\x1b[31m")
"""OSC title, clear screen, full reset, line drawing set, C1 CSI, CR, a line separator,
OSC 52 (clipboard), a colour left open."""

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
"""What must never reach a terminal raw (tab and newline are text)."""

SERVER = r'''
import json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
HOSTILE = HOSTILE_TEXT
STATE = os.path.join(os.environ["SPARKTUI_NODE_STATE"], "hostile.json")
port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 30011
print("INFO hostile engine " + HOSTILE + " starts", flush=True)
print("INFO a line of its own " + HOSTILE, flush=True)
if os.environ.get("HOSTILE_LONG_LINE"):  # that many characters, and no newline
    sys.stdout.write("y" * int(os.environ["HOSTILE_LONG_LINE"]))
    sys.stdout.flush()

def mode():
    try:
        with open(STATE) as f:
            return json.load(f).get("mode", "names")
    except (OSError, ValueError):
        return "names"

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def answer(self, body, length=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        m = mode()
        chunk = b"x" * 65536
        try:
            if m == "endless":
                self.send_response(200)
                self.end_headers()
                while True:
                    self.wfile.write(chunk)
            if m == "huge":
                self.answer(b"", 100 * 65536 * 16)
                for _ in range(100 * 16):
                    self.wfile.write(chunk)
                return
        except OSError:
            return
        if self.path == "/v1/models":
            data = {"object": "list", "data": [{"id": "org/toy" + HOSTILE},
                                               {"id": HOSTILE + "second"}]}
            self.answer(json.dumps(data).encode())
        elif self.path == "/metrics":
            self.answer(("# HELP " + HOSTILE + "\nvllm:num_requests_running{model_name=\""
                         + HOSTILE + "\"} 1\n").encode())
        else:
            self.answer(b"")

host = sys.argv[sys.argv.index("--host") + 1] if "--host" in sys.argv else "0.0.0.0"
ThreadingHTTPServer((host, port), Handler).serve_forever()
'''.replace("HOSTILE_TEXT", repr(HOSTILE))


def hostile_recipe(port: int = 30011, extra: str = "", env: str = "") -> str:
    """A one-node recipe whose engine is ``SERVER`` (the test image runs the command it is
    given); ``extra``: more recipe lines (hooks); ``env``: lines of its [env] table
    (``HOSTILE_LONG_LINE = "N"``: N characters printed after its start, no newline)."""
    text = (f'engine = "vllm"\ndocker_image = "vllm:test"\nmodel = "org/toy"\nport = {port}\n'
            f"required_nodes = 1\ntensor_parallel_size = 1\n"
            f"entrypoint = {json.dumps(['python3', '-c', SERVER])}\n{extra}\n")
    return text + (f"\n[env]\n{env}\n" if env else "")


def printf_command(text: str) -> str:
    """A shell command printing ``text`` to stderr: its bytes as printf's octal escapes
    (the recipe holds no control character; the node's shell makes them)."""
    escaped = "".join(chr(b) if 0x20 <= b < 0x7f and chr(b) not in "\\'%" else f"\\{b:03o}"
                      for b in text.encode())
    return f"printf '{escaped}' >&2"


def hostile_mode(node, mode: str) -> None:
    """What the node's hostile engine answers from now on."""
    path = Path(node.state_dir) / "hostile.json"
    path.write_text(json.dumps({"mode": mode}))
    os.chmod(path, 0o644)


def raw_controls(text: str) -> list[str]:
    """Every character of ``text`` a terminal would act on (ESC, BEL, CR, C1, ...)."""
    return RAW_CONTROL.findall(text)


@dataclass
class Run:
    code: int
    out: str
    err: str
    peak_rss_mb: float
    seconds: float
    cpu_seconds: float


PEAK_AT_EXIT = """
import atexit, os, runpy, sys

def peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    with open(os.environ.pop("SPARKTUI_TEST_PEAK"), "w") as f:
        f.write(status)

atexit.register(peak)
sys.argv[0] = "sparktui"
runpy.run_module("sparktui", run_name="__main__", alter_sys=True)
"""
"""``python -m sparktui`` that writes its peak RSS (KiB, VmHWM) to ``$SPARKTUI_TEST_PEAK``
as it exits. ``wait4``'s ``ru_maxrss`` would not do: a child of fork and exec counts the
parent's peak (the pytest worker's, 300 MB and more under xdist) as its own."""


def run_sparktui(*args: str, cwd: Path | None = None, tree: Path | None = None,
                 timeout: float = 120) -> Run:
    """``python -m sparktui ARGS``, its own peak RSS (``PEAK_AT_EXIT``) and its CPU time
    (``wait4``'s rusage of that one child). ``tree`` (or
    ``$SPARKTUI_TEST_TREE``: to see these tests fail on an earlier commit's worktree):
    the sparktui of another checkout, run from there (``-m`` puts the folder first)."""
    env = dict(os.environ)
    tree = tree or (Path(env["SPARKTUI_TEST_TREE"]) if env.get("SPARKTUI_TEST_TREE") else None)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
        cwd = cwd or tree
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", prefix="sparktui-peak-") as peak:
        env["SPARKTUI_TEST_PEAK"] = peak.name
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", PEAK_AT_EXIT, *args], stdout=out,
                                stderr=err, cwd=cwd, env=env)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise AssertionError(f"sparktui {' '.join(args)} still ran after {timeout:g} s")
            time.sleep(0.02)
        seconds = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        told = peak.read().strip()
        return Run(proc.returncode, out.read().decode("utf-8", "replace"),
                   err.read().decode("utf-8", "replace"),
                   int(told) / 1024 if told.isdigit() else float("inf"), seconds,
                   usage.ru_utime + usage.ru_stime)
