"""An HTTP hop in front of olah that answers a ``Range: bytes=N-`` request with the bytes
from N on (206), as the Hugging Face Hub and its CDN do.

A stand-in for one behaviour only, and why: olah's offline mirror answers a Range request
with the whole file (200), so a resumed download cannot be shown against it. Everything
else (the API, the listing, the files, their headers) is olah's, passed through: the
request goes upstream without its Range, the answer is cut here.
"""

from __future__ import annotations

import http.client
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RANGE = re.compile(r"bytes=(\d+)-(\d*)")
HOP = {"connection", "transfer-encoding", "content-length", "keep-alive"}


class RangeShim:
    def __init__(self, upstream: tuple[str, int], listen: str = "127.0.0.1"):
        self.upstream = upstream
        self.ranges: list[str] = []  # the Range headers it honoured, in order
        self.seen: list[tuple[str, str, str, int]] = []  # method, path, Range, status
        shim = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                shim.answer(self, "GET")

            def do_HEAD(self) -> None:
                shim.answer(self, "HEAD")

            def do_POST(self) -> None:
                shim.answer(self, "POST")

        self.server = ThreadingHTTPServer((listen, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{listen}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, req: BaseHTTPRequestHandler, method: str) -> None:
        wanted = req.headers.get("Range", "")
        headers = {k: v for k, v in req.headers.items()
                   if k.lower() not in {"range", "host", "accept-encoding", *HOP}}
        sent = req.rfile.read(int(req.headers.get("Content-Length") or 0))
        conn = http.client.HTTPConnection(*self.upstream, timeout=60)
        try:
            conn.request(method, req.path, body=sent or None, headers=headers)
            got = conn.getresponse()
            body = got.read() if method != "HEAD" else b""
            status, head = got.status, got.getheaders()
        finally:
            conn.close()
        self.seen.append((method, req.path, wanted, status))
        match = RANGE.fullmatch(wanted.strip())
        if method == "GET" and status == 200 and match:
            start = int(match.group(1))
            end = int(match.group(2)) if match.group(2) else len(body) - 1
            total = len(body)
            body = body[start:end + 1]
            self.ranges.append(wanted)
            status = 206
            head = [*head, ("Content-Range", f"bytes {start}-{start + len(body) - 1}/{total}")]
        req.send_response(status)
        for key, value in head:
            if key.lower() not in HOP:
                req.send_header(key, value)
        length = len(body) if method != "HEAD" else next(
            (int(v) for k, v in head if k.lower() == "content-length"), 0)
        req.send_header("Content-Length", str(length))
        req.end_headers()
        if body:
            req.wfile.write(body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
