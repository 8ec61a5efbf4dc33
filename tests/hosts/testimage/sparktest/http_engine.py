"""The test engine's HTTP side: an OpenAI-compatible server like vLLM's and SGLang's.

Metric names are vLLM 0.33's (``vllm:kv_cache_usage_perc``, ``vllm:inter_token_latency_seconds``
...; ``vllm:gpu_cache_usage_perc`` and ``*time_per_output_token*`` are gone since about
0.12) and SGLang 0.5.23's (``sglang:*``, served only with ``--enable-metrics``).

Values come from $SPARKTUI_NODE_STATE/engine.json, re-read on every request:
  running, waiting, kv (0..1), kv_wave ([amplitude, period s]: kv moves as a sine),
  prompt_tps, gen_tps, rps (requests/s, default 1 when any token rate is set), ttft,
  tpot (seconds, or a mix [[seconds, share], ...]), max_model_len, fail_share (0..1 of
  the completions answer 500, every 1/share-th).
Counters advance at the given rates over real time; every TTFT/TPOT observation is
exactly ttft/tpot (or one of the mix's values, in proportion to the shares), so
sum/count (mean) equals the set value and histogram quantiles land in the bucket
holding the value at that rank.

Run standalone (the tmux tests do, on the host):
    python http_engine.py --host 127.0.0.1 --port 8000 --model m [--sglang]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

try:  # in the test image: the sparktest package
    from sparktest.histograms import TPOT_BUCKETS, TTFT_BUCKETS, Histogram, mixture
except ImportError:  # run as a file on the host (the tmux tests, bench_bench.py): its folder
    from histograms import TPOT_BUCKETS, TTFT_BUCKETS, Histogram, mixture  # is on sys.path


VLLM_VERSION = "0.33.0"
SGLANG_VERSION = "0.5.23"


class EngineState:
    def __init__(self, model: str, kind: str = "vllm", state_dir: str | None = None,
                 ready_at: float = 0.0, max_model_len: int = 131072,
                 metrics_enabled: bool = True, hang_at: float | None = None) -> None:
        self.model = model
        self.metrics_enabled = metrics_enabled
        self.hang_at = hang_at
        self.kind = kind
        self.control = Path(state_dir or os.environ.get("SPARKTUI_NODE_STATE", ".")) / "engine.json"
        self.ready_at = ready_at
        self.max_model_len = max_model_len
        self.on_first_models: Callable[[], None] | None = None  # after its first 200
        self.models_hangs = 0  # /v1/models after the first 200 that are never answered
        self.models_answered = False
        self.lock = threading.Lock()
        self.prompt = self.gen = self.success = 0.0
        self.completions = 0
        self.ttft = Histogram(TTFT_BUCKETS)
        self.tpot = Histogram(TPOT_BUCKETS)
        self.values: dict = {}
        self.last = time.monotonic()
        self.advance()

    def read_control(self) -> dict:
        try:
            data = json.loads(self.control.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def advance(self) -> dict:
        """Integrate counters at the rates in effect since the last call; re-read control."""
        with self.lock:
            now = time.monotonic()
            dt, self.last = now - self.last, now
            v = self.values
            self.prompt += float(v.get("prompt_tps", 0)) * dt
            self.gen += float(v.get("gen_tps", 0)) * dt
            rps = self._rps(v)
            self.success += rps * dt
            self.ttft.add_rate(v.get("ttft", 0.1), rps * dt)
            self.tpot.add_rate(v.get("tpot", 0.02), float(v.get("gen_tps", 0)) * dt)
            self.values = self.read_control()
            return dict(self.values)

    @staticmethod
    def _rps(v: dict) -> float:
        default = 1.0 if (v.get("gen_tps") or v.get("prompt_tps")) else 0.0
        return float(v.get("rps", default))

    def ready(self) -> bool:
        return time.time() >= self.ready_at

    def should_fail(self) -> bool:
        """``fail_share`` (0..1) of the completions answer 500, spread evenly (every
        1/share-th request), so a test knows how many failed."""
        try:
            share = min(max(float(self.read_control().get("fail_share", 0)), 0.0), 1.0)
        except (TypeError, ValueError):
            share = 0.0
        with self.lock:
            before = self.completions
            self.completions += 1
        return int((before + 1) * share) > int(before * share)

    def hung(self) -> bool:
        """A hung engine (STANDIN_HANG_AFTER): connections are accepted, never answered."""
        return self.hang_at is not None and time.time() >= self.hang_at

    def latencies(self) -> tuple[float, float]:
        """Seconds before the first streamed token and between the next ones (the
        first value of a ``ttft``/``tpot`` mix), capped so a test never waits long."""
        ttft, tpot = mixture(self.values.get("ttft", 0)), mixture(self.values.get("tpot", 0))
        return (min(ttft[0][0], 5.0) if ttft else 0.0, min(tpot[0][0], 1.0) if tpot else 0.0)

    def record_request(self, prompt_tokens: int, gen_tokens: int) -> None:
        with self.lock:
            self.prompt += prompt_tokens
            self.gen += gen_tokens
            self.success += 1
            mix = mixture(self.values.get("ttft", 0.1))
            if mix:
                self.ttft.observe(mix[0][0])

    def metrics(self) -> str:
        v = self.advance()
        lab = f'model_name="{self.model}",engine="0"'
        out: list[str] = []

        def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{name}{s} {float(x)!r}" for s, x in samples)

        def hist(name: str, help_: str, h: Histogram) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} histogram")
            for le, c in zip(h.buckets, h.counts, strict=True):
                out.append(f'{name}_bucket{{le="{le}",{lab}}} {float(c)!r}')
            out.append(f'{name}_bucket{{le="+Inf",{lab}}} {float(h.count)!r}')
            out.append(f"{name}_count{{{lab}}} {float(h.count)!r}")
            out.append(f"{name}_sum{{{lab}}} {h.sum!r}")

        running, waiting, kv = v.get("running", 0), v.get("waiting", 0), v.get("kv", 0.0)
        wave = v.get("kv_wave")  # [amplitude, period s]: KV usage moving like a real load
        if isinstance(wave, list) and len(wave) == 2 and float(wave[1]) > 0:
            phase = 2 * math.pi * time.time() / float(wave[1])
            kv = min(1.0, max(0.0, float(kv) + float(wave[0]) * math.sin(phase)))
        with self.lock:
            if self.kind == "sglang":
                metric("sglang:num_running_reqs", "gauge", "The number of running requests.",
                       [(f"{{{lab}}}", running)])
                metric("sglang:num_queue_reqs", "gauge", "The number of requests in the "
                       "waiting queue.", [(f"{{{lab}}}", waiting)])
                metric("sglang:token_usage", "gauge", "The token usage.", [(f"{{{lab}}}", kv)])
                metric("sglang:gen_throughput", "gauge", "The generation throughput "
                       "(token/s).", [(f"{{{lab}}}", v.get("gen_tps", 0))])
                metric("sglang:prompt_tokens_total", "counter", "Number of prefill tokens "
                       "processed.", [(f"{{{lab}}}", self.prompt)])
                metric("sglang:generation_tokens_total", "counter", "Number of generation "
                       "tokens processed.", [(f"{{{lab}}}", self.gen)])
                hist("sglang:time_to_first_token_seconds", "Histogram of time to first token "
                     "in seconds.", self.ttft)
                hist("sglang:inter_token_latency_seconds", "Histogram of inter-token latency "
                     "in seconds.", self.tpot)
                return "\n".join(out) + "\n"
            metric("vllm:num_requests_running", "gauge",
                   "Number of requests in model execution batches.", [(f"{{{lab}}}", running)])
            metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be "
                   "processed.", [(f"{{{lab}}}", waiting)])
            metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent "
                   "usage.", [(f"{{{lab}}}", kv)])
            metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                   [(f"{{{lab}}}", self.prompt)])
            metric("vllm:generation_tokens_total", "counter", "Number of generation tokens "
                   "processed.", [(f"{{{lab}}}", self.gen)])
            metric("vllm:request_success_total", "counter", "Count of successfully processed "
                   "requests.", [(f'{{finished_reason="stop",{lab}}}', self.success),
                                 (f'{{finished_reason="length",{lab}}}', 0)])
            hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in "
                 "seconds.", self.ttft)
            hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in "
                 "seconds.", self.tpot)
        return "\n".join(out) + "\n"


def make_handler(state: EngineState, log: Callable[[str], None]):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "uvicorn"
        sys_version = ""

        def log_message(self, format: str, *args) -> None:
            pass

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            if os.environ.get("STANDIN_ACCESS_LOG", "1") != "0":
                phrase = self.responses.get(code, ("",))[0]
                log(f'INFO:     {self.client_address[0]}:{self.client_address[1]} - '
                    f'"{self.command} {self.path} HTTP/1.1" {code} {phrase}')

        def _json(self, code: int, obj) -> None:
            self._send(code, json.dumps(obj).encode())

        def _not_ready(self) -> bool:
            if state.ready():
                return False
            self._json(503, {"object": "error", "message": "Model is loading", "code": 503})
            return True

        def _models_hang(self) -> bool:
            with state.lock:
                if not (state.models_answered and state.models_hangs > 0):
                    return False
                state.models_hangs -= 1
                return True

        def _hang_if_hung(self) -> None:
            while state.hung():
                time.sleep(3600)

        def do_GET(self) -> None:
            self._hang_if_hung()
            path = self.path.split("?")[0]
            if path == "/metrics" and not state.metrics_enabled:
                self._json(404, {"detail": "Not Found"})
            elif path == "/metrics":
                self._send(200, state.metrics().encode(), "text/plain; version=0.0.4")
            elif path in ("/health", "/ping"):
                if not self._not_ready():
                    self._send(200, b"")
            elif path == "/v1/models":
                if self._models_hang():
                    time.sleep(3600)  # never answered: the client's timeout ends the look
                elif not self._not_ready():
                    owner = "sglang" if state.kind == "sglang" else "vllm"
                    self._json(200, {"object": "list", "data": [{
                        "id": state.model, "object": "model", "created": int(time.time()),
                        "owned_by": owner, "root": state.model, "parent": None,
                        "max_model_len": state.max_model_len}]})
                    state.models_answered = True
                    first, state.on_first_models = state.on_first_models, None
                    if first is not None:
                        first()
            elif path == "/version" and state.kind != "sglang":
                self._json(200, {"version": VLLM_VERSION})  # vLLM: {"version": VLLM_VERSION}
            elif path in ("/server_info", "/get_server_info") and state.kind == "sglang":
                # SGLang 0.5: the server args, the scheduler's info and "version"
                # (/get_server_info is the deprecated alias of /server_info).
                self._json(200, {"model_path": state.model, "tp_size": 1,
                                 "internal_states": [], "version": SGLANG_VERSION})
            else:
                self._json(404, {"detail": "Not Found"})

        def do_POST(self) -> None:
            self._hang_if_hung()
            length = int(self.headers.get("Content-Length") or 0)
            try:
                req = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json(400, {"object": "error", "message": "invalid JSON", "code": 400})
                return
            path = self.path.split("?")[0]
            if path not in ("/v1/completions", "/v1/chat/completions"):
                self._json(404, {"detail": "Not Found"})
                return
            if self._not_ready():
                return
            if state.should_fail():
                self._json(500, {"object": "error", "message": "standin: failed on purpose",
                                 "type": "InternalServerError", "param": None, "code": 500})
                return
            chat = path.endswith("chat/completions")
            text = req.get("prompt") if not chat else json.dumps(req.get("messages", ""))
            n_prompt = max(1, len(str(text).split()))
            n_out = max(1, min(int(req.get("max_tokens") or 1), 4096))
            state.record_request(n_prompt, n_out)
            rid = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
            words = ["Hello"] + [" world"] * (n_out - 1)
            usage = {"prompt_tokens": n_prompt, "completion_tokens": n_out,
                     "total_tokens": n_prompt + n_out}
            base = {"id": rid, "created": int(time.time()), "model": state.model}
            if not req.get("stream"):
                content = "".join(words)
                choice = ({"index": 0, "message": {"role": "assistant", "content": content},
                           "finish_reason": "length"} if chat else
                          {"index": 0, "text": content, "logprobs": None,
                           "finish_reason": "length"})
                self._json(200, {**base, "object": "chat.completion" if chat
                                 else "text_completion", "choices": [choice], "usage": usage})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            first, gap = state.latencies()
            for i, word in enumerate(words):
                time.sleep(first if i == 0 else gap)
                last = i == len(words) - 1
                choice = ({"index": 0, "delta": {"content": word},
                           "finish_reason": "length" if last else None} if chat else
                          {"index": 0, "text": word, "logprobs": None,
                           "finish_reason": "length" if last else None})
                chunk = {**base, "object": "chat.completion.chunk" if chat
                         else "text_completion", "choices": [choice]}
                self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        do_HEAD = do_GET

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(host: str, port: int, state: EngineState, log: Callable[[str], None] = print
          ) -> Server:
    """Bind (raises OSError if the port is taken) and serve in a daemon thread."""
    server = Server((host, port), make_handler(state, log))
    threading.Thread(target=server.serve_forever, daemon=True, name="fake-engine").start()
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--host", default=os.environ.get("SPARKTUI_NODE_ADDR", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--model", default="standin-model")
    ap.add_argument("--sglang", action="store_true")
    ap.add_argument("--state-dir")
    ap.add_argument("--ready-after", type=float, default=0.0)
    a = ap.parse_args()
    st = EngineState(a.model, "sglang" if a.sglang else "vllm", a.state_dir,
                     time.time() + a.ready_after)
    serve(a.host, a.port, st, lambda line: print(line, flush=True))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
