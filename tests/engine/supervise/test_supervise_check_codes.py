"""A supervision check says why a node is unknown as a code (#31): ``docker unreachable``
and ``timeout`` are sentences as data, kept on the head as codes (a failure's detail in
the record), and put into words by whoever reads them, in their language."""

from __future__ import annotations

import asyncio
import json

from sparktui.engine.supervise.checks import _why, look
from sparktui.engine.supervise.codes import failure_said
from sparktui.engine.supervise.record import Failure
from sparktui.i18n import install
from sparktui.said import Said


def _look(s, node: str):
    async def go():
        engine = s.engine()
        try:
            target = next(n for n in engine.config.clusters[0].nodes if n.name == node)
            return await look(engine.transport(target), 10.0)
        finally:
            await engine.close()
    return asyncio.run(go())


def test_a_node_whose_docker_is_down_is_said_as_a_code_and_read_in_any_language(fresh_site):
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    try:
        seen = _look(s, "node1")
    finally:
        s.hosts.node("node1").docker_up()
    assert seen.workloads is None and isinstance(seen.error, Said), seen
    document = seen.error.as_json()
    assert document["code"] == "layout.colon"
    assert document["params"]["head"] == {"code": "reason.docker_unreachable", "params": {}}
    # the failure the supervisor keeps on the head, read back by another operator
    failure = Failure("unreachable", "node1", seen.error)
    kept = json.loads(json.dumps(failure.as_dict()))
    assert kept["detail"] == document
    back = Failure.from_dict(kept)
    assert back == failure
    install("ru")
    try:
        shown = str(failure_said(back))
    finally:
        install("en")
    assert shown.startswith("node1: недоступен (docker недоступен: "), shown
    assert str(failure_said(back)).startswith("node1: unreachable (docker unreachable: ")


def test_an_api_that_does_not_answer_in_time_is_a_timeout_code() -> None:
    why = _why(TimeoutError())
    assert isinstance(why, Said) and why.as_json() == {"code": "reason.timeout", "params": {}}
    failure = Failure("health", "node1", why)
    assert Failure.from_dict(json.loads(json.dumps(failure.as_dict()))) == failure
    assert str(failure_said(failure)) == "node1: /health does not answer (timeout)"
    assert _why(ConnectionRefusedError("refused")) == "refused"  # what it said, as it came
