"""A head whose API does not answer in time is a look that failed, not a head that does
not serve: ``EngineStatus.timed_out`` and ``ClusterHealth.unread`` say so, and the router
and the confirmations read it as unknown. A real HTTP server on loopback, reached through
the local node's transport: /health answers, /v1/models never does (a busy head), and a
port nobody listens on (a head still loading) is refused, not timed out."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from engine.workloads.test_logs_local import LOCAL_CONFIG

from sparktui.config.loader import load_config
from sparktui.config.models import Node
from sparktui.engine.api import StepState
from sparktui.engine.bench.target import pick
from sparktui.engine.health import engine_status
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.local import LocalTransport
from sparktui.engine.router import _listed, backends, settled
from sparktui.engine.status import ClusterHealth, EngineStatus, NodeHealth
from sparktui.errors import CheckUnknown
from sparktui.plan.router import workers


class _Busy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self.server.release.wait()  # type: ignore[attr-defined]  # never, in the test
            return
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def busy_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Busy)
    server.release = threading.Event()  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.release.set()  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


def _transport(tmp_path) -> LocalTransport:
    config = tmp_path / "config.toml"
    config.write_text(LOCAL_CONFIG)
    loaded = load_config(config).config
    return LocalTransport(loaded.clusters[0].nodes[0], loaded)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_head_whose_models_do_not_answer_in_time_is_timed_out_not_idle(tmp_path, busy_port):
    status = asyncio.run(engine_status(_transport(tmp_path), "127.0.0.1", busy_port, 0.5))
    assert status.health_ok and not status.ready and status.timed_out, status
    refused = asyncio.run(engine_status(_transport(tmp_path), "127.0.0.1", _free_port(), 0.5))
    assert not refused.ready and not refused.timed_out, refused


def test_a_timed_out_head_makes_its_node_unread_and_the_look_unsettled():
    busy = EngineStatus(health_ok=True, ready=False, timed_out=True, recipe="beta", port=2)
    ready = EngineStatus(health_ok=True, ready=True, models=["org/alpha"], recipe="alpha",
                         port=1)
    health = ClusterHealth("c", [NodeHealth("n1", True, engines=[ready]),
                                 NodeHealth("n2", True, engines=[busy]),
                                 NodeHealth("n3", False, error="timeout")], 0.0)
    assert health.unread == ["n2", "n3"]
    assert not settled(health, None) and not settled(health, "alpha")
    calm = ClusterHealth("c", [NodeHealth("n1", True, engines=[ready])], 0.0)
    assert settled(calm, "alpha") and settled(calm, None) and not settled(calm, "beta")
    assert calm.unread == []


def test_a_head_too_busy_to_answer_keeps_its_place_in_the_router():
    """Rebuilding the router without it would take the router from the busiest head's
    clients: it stays a worker (SMG asks it its names), said, and nothing waits for a
    name it did not give."""
    busy = EngineStatus(health_ok=True, ready=False, timed_out=True, recipe="beta", port=2)
    ready = EngineStatus(health_ok=True, ready=True, models=["org/alpha"], recipe="alpha",
                         port=1)
    health = ClusterHealth("c", [NodeHealth("n1", True, engines=[ready]),
                                 NodeHealth("n2", True, engines=[busy])], 0.0)
    nodes = {n: Node(name=n, ssh_ip=f"10.0.0.{i}", rank=i) for i, n in enumerate(("n1", "n2"))}
    events: list = []
    log = ProgressLog(events.append)
    found = backends(health, nodes, log)
    assert workers(found) == ["http://10.0.0.0:1", "http://10.0.0.1:2"]
    assert _listed(found, "n1", log) == ["org/alpha"]  # nothing waits for beta's names
    said = [(e.node, e.state, str(e.detail)) for e in events]
    assert ("n2", StepState.WARN, "beta did not answer in time: kept in the router, its "
            "model names unread") in said, said


def test_bench_calls_a_head_whose_models_timed_out_unknown_not_nothing_serving():
    """/health answered and /v1/models timed out: no error text, but not "nothing serves"."""
    busy = EngineStatus(health_ok=True, ready=False, timed_out=True, recipe="beta", port=2)
    health = ClusterHealth("c", [NodeHealth("n2", True, engines=[busy])], 0.0)
    with pytest.raises(CheckUnknown) as caught:
        pick(health, None)
    text = caught.value.render()
    assert "what serves on cluster 'c' is unknown" in text and "timeout on port 2" in text, text
