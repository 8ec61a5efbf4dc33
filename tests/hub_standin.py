"""A stand-in of the Hub's file API, for what olah (tests/hub_support.py) cannot play.

Why a stand-in (tests/lookalike.py ``Why.HUB``): olah, the maintained Hub server that
runs offline here, has no accounts (no gated repository, no 401 for a missing or a
refused token, nothing that shows the token was sent) and reads every size from git (so
never a negative size, a size that is text, or a listing that lies). This server plays
those on cue and nothing else; the happy path, 404s and revisions are olah's.

What it speaks, as the Hub does and as ``huggingface_hub`` reads it:
``GET /api/models/ORG/NAME[/revision/REV]`` (the model info: ``sha``, ``siblings`` with
``rfilename``, ``size``, ``lfs``), ``POST /api/models/ORG/NAME/paths-info/REV`` (form
``paths``), ``GET|HEAD /ORG/NAME/resolve/REV/FILE`` (``ETag``, ``X-Repo-Commit``,
``Content-Length``; an LFS file's ``X-Linked-Size`` and ``X-Linked-Etag``). A gated
repo answers its files 401 ``X-Error-Code: GatedRepo`` until ``Authorization: Bearer
TOKEN`` carries its token; an unknown repo 401 ``RepoNotFound``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

COMMIT = "c0ffee" + "0" * 34


@dataclass(frozen=True)
class Flood:
    """A file whose body never ends (``size`` bytes of spaces, sent without a
    ``Content-Length``, as a lying or broken server would): only a bounded read stops."""

    size: int


@dataclass
class StandinRepo:
    """Files by name: bytes (a regular file), an int (an LFS file of that size: its body
    is never asked for) or a ``Flood``. ``sizes``: what the listings say of a file instead
    (any JSON value: the lie). ``token``: gated, files need this token."""

    files: dict[str, bytes | int | Flood]
    sizes: dict[str, Any] = field(default_factory=dict)
    token: str | None = None

    def size(self, name: str) -> Any:
        content = self.files[name]
        return self.sizes.get(name, content if isinstance(content, int) else
                              content.size if isinstance(content, Flood) else len(content))

    def entry(self, name: str, key: str) -> dict[str, Any]:
        content, size = self.files[name], self.size(name)
        out: dict[str, Any] = {key: name, "size": size,
                               "blobId": hashlib.sha1(name.encode()).hexdigest()}
        if isinstance(content, int):
            out["lfs"] = {"sha256": hashlib.sha256(name.encode()).hexdigest(), "size": size,
                          "pointerSize": 134}
        return out


class HubStandin:
    def __init__(self) -> None:
        self.repos: dict[str, StandinRepo] = {}
        self.seen: list[tuple[str, str, str | None]] = []  # method, path, Authorization
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hub.answer(self, "GET")

            def do_HEAD(self) -> None:
                hub.answer(self, "HEAD")

            def do_POST(self) -> None:
                hub.answer(self, "POST")

        return Handler

    def answer(self, req: BaseHTTPRequestHandler, method: str) -> None:
        path = unquote(urlsplit(req.path).path)
        self.seen.append((method, path, req.headers.get("Authorization")))
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "models"] and len(parts) >= 4:
            repo = self.repos.get("/".join(parts[2:4]))
            if repo is None:
                return self._error(req, 401, "RepoNotFound", "Repository not found")
            if method == "POST":
                length = int(req.headers.get("Content-Length") or 0)
                form = parse_qs(req.rfile.read(length).decode())
                listed = [repo.entry(p, "path") | {"type": "file"} for p in form.get("paths", [])
                          if p in repo.files]
                return self._send(req, 200, json.dumps(listed).encode(), {})
            info = {"id": "/".join(parts[2:4]), "sha": COMMIT, "gated": bool(repo.token),
                    "siblings": [repo.entry(n, "rfilename") for n in repo.files]}
            return self._send(req, 200, json.dumps(info).encode(), {})
        if len(parts) >= 5 and parts[2] == "resolve":
            repo = self.repos.get("/".join(parts[:2]))
            name = "/".join(parts[4:])
            if repo is None:
                return self._error(req, 401, "RepoNotFound", "Repository not found")
            if repo.token and req.headers.get("Authorization") != f"Bearer {repo.token}":
                return self._error(req, 401, "GatedRepo", "Access to this model is restricted")
            if name not in repo.files:
                return self._error(req, 404, "EntryNotFound", "Entry not found")
            content = repo.files[name]
            if isinstance(content, Flood):
                return self._flood(req, content.size)
            etag = hashlib.sha1(name.encode()).hexdigest()
            headers = {"ETag": f'"{etag}"', "X-Repo-Commit": COMMIT}
            if isinstance(content, int):
                headers |= {"X-Linked-Size": str(content), "X-Linked-Etag": f'"{etag}"'}
                content = b""
            return self._send(req, 200, content, headers, head=method == "HEAD")
        return self._error(req, 404, None, "no such route")

    def _error(self, req: BaseHTTPRequestHandler, status: int, code: str | None,
               message: str) -> None:
        headers = {"X-Error-Message": message} | ({"X-Error-Code": code} if code else {})
        self._send(req, status, json.dumps({"error": message}).encode(), headers)

    def _send(self, req: BaseHTTPRequestHandler, status: int, body: bytes,
              headers: dict[str, str], head: bool = False) -> None:
        req.send_response(status)
        for key, value in headers.items():
            req.send_header(key, value)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        if not head:
            req.wfile.write(body)

    def _flood(self, req: BaseHTTPRequestHandler, size: int) -> None:
        req.send_response(200)
        req.send_header("X-Repo-Commit", COMMIT)
        req.end_headers()  # HTTP/1.0, no length: the body ends when the connection does
        chunk = b" " * (64 << 10)
        try:
            for _ in range(size // len(chunk)):
                req.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader stopped at its limit

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def hub_standin() -> Iterator[HubStandin]:
    server = HubStandin()
    try:
        yield server
    finally:
        server.stop()
