"""A small real HTTP server speaking Home Assistant's REST API, for power tests.

``FakeHomeAssistant(token, {"switch.node1": "off"})`` listens on 127.0.0.1 (free port)
in a thread: ``GET /api/``, ``GET /api/states/<entity_id>``,
``POST /api/services/<domain>/<turn_on|turn_off|toggle>`` with ``{"entity_id": ...}``.
Like Home Assistant: a wrong ``Authorization: Bearer`` answers 401 in plain text, an
unknown entity's state 404, and a service call 200 with the list of states it changed
(``[]`` when nothing changed, an unknown entity included).

Knobs: ``refuse`` (entities whose state never changes), ``lag`` (seconds before a
switched state shows), ``delay`` (seconds before answering anything about an entity;
key ``"*"``: every request), ``fail_with`` (status code answered to every request,
with a body echoing the request's Authorization header, to prove callers scrub it;
``echo`` says in which form, ``repr`` by default).
``link(entity, node, boot_delay)`` simulates mains power: turning the entity on starts
the node's sshd (after ``boot_delay``); turning it off while sshd still runs kills it
and is recorded in ``hard_cuts`` (power cut under a running OS).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVICES = {"turn_on": "on", "turn_off": "off"}


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: Any
    authorized: bool

    @property
    def service(self) -> tuple[str, str] | None:
        """("turn_off", "switch.node1") for a service call, else None."""
        parts = self.path.split("/")
        if self.method != "POST" or len(parts) != 5 or parts[1:3] != ["api", "services"]:
            return None
        entity = self.body.get("entity_id") if isinstance(self.body, dict) else None
        return parts[4], str(entity)


class FakeHomeAssistant:
    __test__ = False

    def __init__(self, token: str = "test-token-long-lived",
                 entities: dict[str, str] | None = None):
        self.token = token
        self.states: dict[str, str] = dict(entities or {})
        self.calls: list[Call] = []
        self.refuse: set[str] = set()
        self.lag: dict[str, float] = {}
        self.delay: dict[str, float] = {}
        self.fail_with: int | None = None
        self.echo: Any = repr
        """How a failure's body echoes the Authorization header (a function of it)."""
        self.hard_cuts: list[str] = []
        self._links: dict[str, tuple[Any, float]] = {}
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeHomeAssistant:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeHomeAssistant:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def toml(self, token: str | None = None, shutdown_delay: float = 0,
             timeout: float = 10.0, confirm_timeout: float = 10.0) -> str:
        """A ``[home_assistant]`` table pointing at this server."""
        return (f'[home_assistant]\nurl = "{self.url}"\ntoken = "{token or self.token}"\n'
                f"shutdown_delay_seconds = {int(shutdown_delay)}\n"
                f"timeout_seconds = {timeout}\nconfirm_timeout_seconds = {confirm_timeout}\n")

    # -- simulation ----------------------------------------------------------------
    def link(self, entity: str, node: Any, boot_delay: float = 0.0) -> None:
        """The entity powers ``node`` (a tests.hosts Node)."""
        self._links[entity] = (node, boot_delay)

    def service_calls(self) -> list[tuple[str, str]]:
        return [s for c in self.calls if (s := c.service) is not None]

    def _switch(self, entity: str, service: str) -> list[dict]:
        if entity not in self.states or entity in self.refuse:
            return []
        target = SERVICES.get(service) or ("off" if self.states[entity] == "on" else "on")
        if self.states[entity] == target:
            return []
        lag = self.lag.get(entity, 0.0)
        if lag:
            self._later(lag, lambda: self._apply(entity, target))
            return []
        self._apply(entity, target)
        return [self._state(entity)]

    def _apply(self, entity: str, target: str) -> None:
        with self._lock:
            self.states[entity] = target
        linked = self._links.get(entity)
        if linked is None:
            return
        node, boot_delay = linked
        if target == "on":
            self._later(boot_delay, node.start)
        elif node.running:
            self.hard_cuts.append(entity)
            node.kill()

    def _later(self, seconds: float, action: Any) -> None:
        if seconds <= 0:
            action()
            return
        timer = threading.Timer(seconds, action)
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def _state(self, entity: str) -> dict:
        return {"entity_id": entity, "state": self.states[entity], "attributes": {},
                "last_changed": "2026-01-01T00:00:00+00:00"}


def _handler(ha: FakeHomeAssistant) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, body: Any, text: bool = False) -> None:
            data = (body if text else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if text else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            auth = self.headers.get("Authorization", "")
            ok = auth == f"Bearer {ha.token}"
            call = Call(method, self.path, body, ok)
            ha.calls.append(call)
            entity = (body or {}).get("entity_id", "") if isinstance(body, dict) else ""
            if self.path.startswith("/api/states/"):
                entity = self.path.removeprefix("/api/states/")
            wait = ha.delay.get(entity, 0.0) or ha.delay.get("*", 0.0)
            if wait:
                time.sleep(wait)
            if ha.fail_with is not None:
                self._send(ha.fail_with, f"internal error handling {ha.echo(auth)}", text=True)
            elif not ok:
                self._send(401, "401: Unauthorized", text=True)
            elif method == "GET" and self.path == "/api/":
                self._send(200, {"message": "API running."})
            elif method == "GET" and self.path.startswith("/api/states/"):
                if entity in ha.states:
                    self._send(200, ha._state(entity))
                else:
                    self._send(404, {"message": "Entity not found."})
            elif method == "POST" and call.service is not None:
                domain, service = self.path.split("/")[3:5]
                if service not in (*SERVICES, "toggle") or not entity.startswith(domain + "."):
                    self._send(400, {"message": "Service not found."})
                else:
                    self._send(200, ha._switch(entity, service))
            else:
                self._send(404, {"message": "Not found."})

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


__all__ = ["Call", "FakeHomeAssistant"]
