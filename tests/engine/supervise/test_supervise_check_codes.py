"""A supervision check says why a node is unknown as a code (#31): ``docker unreachable``
and ``timeout`` are sentences as data, kept on the head as codes (a failure's detail in
the record), and put into words by whoever reads them, in their language; so is what a
failed serve said, a restart's failure and a failure of a kind this version does not
know."""

from __future__ import annotations

import asyncio
import json

from sparktui.engine.supervise.checks import _why, look
from sparktui.engine.supervise.codes import OtherFailureSaid, failure_said, reason_said
from sparktui.engine.supervise.record import Failure, Reason, Record, RestartEvent
from sparktui.engine.workloads.serve import ServeSaid
from sparktui.i18n import install
from sparktui.present.supervision import restart_line
from sparktui.said import Said, said


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


def _russian(make):
    install("ru")
    try:
        return make()
    finally:
        install("en")


def test_what_a_failed_serve_said_is_kept_as_its_code_sizes_as_sizes() -> None:
    why = said(ServeSaid.NO_ANSWER, seconds=2.0)
    memory = Reason("memory_not_reclaimed", {"node": "node2", "available": 10_000_000_000,
                                             "needed": 115_200_000_000, "recipe": "toy",
                                             "waited": 3.0})
    record = Record("test", "toy", "ops pid 7", "foreground", "gave_up", 1, 600, 2, 1.0, 2.0,
                    (RestartEvent(1.5, Failure("serve", "node1", why), False,
                                  reason_said(memory)),),
                    Reason("serve_failed", {"node": "node1", "step": "ready", "detail": why}))
    back = Record.parse(_russian(record.text))  # the language that writes it is no matter
    assert back == record
    assert back.reason is not None and back.reason.values["detail"] == why
    assert str(reason_said(back.reason)) == ("serve failed on node1 at ready: no answer on "
                                             "/v1/models after 2 s")
    line = restart_line(back.restarts[0])
    assert line.endswith("node1: serve failed (no answer on /v1/models after 2 s)  failed: "
                         "memory not reclaimed on node2: reboot it (9.3\u00a0GiB available of "
                         "the 107.3\u00a0GiB toy needs, 3 s after its stop)"), line
    russian = _russian(lambda: restart_line(back.restarts[0]))
    assert "нет ответа на /v1/models за 2 с" in russian and "доступно 9,3" in russian, russian
    # the reason's own sizes: a node's memory is far above the bound of a time in seconds
    kept = Reason.from_dict(json.loads(json.dumps(memory.as_dict())))
    assert kept == memory and "9.3\u00a0GiB available" in str(reason_said(kept))
    huge = Reason.from_dict({"code": "memory_not_reclaimed", "available": 10 ** 400,
                             "needed": float("inf")})
    assert huge is not None and huge.values == {"available": 0, "needed": 0}


def test_a_failure_of_a_kind_this_version_does_not_know_is_data_too() -> None:
    failure = Failure.from_dict({"kind": "newer", "node": "node1", "detail": said(
        ServeSaid.NO_ANSWER, seconds=2.0).as_json()})
    assert failure is not None
    shown = failure_said(failure)
    assert shown.code is OtherFailureSaid.KIND and shown.as_json()["params"]["kind"] == "newer"
    assert str(shown) == "node1: newer (no answer on /v1/models after 2 s)"
    assert _russian(lambda: str(shown)) == "node1: newer (нет ответа на /v1/models за 2 с)"
