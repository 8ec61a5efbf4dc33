"""The supervisor's events are codes and values, its words made where they are shown
(#31): the same supervision run under ``ru`` and under ``en`` says the same thing as
data, on the real test hosts; ``supervise`` prints them in the user's language."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal

from engine.test_json_language import codes, steady
from lookalike import Why
from polling import eventually
from site_support import toy_recipe
from supervise_support import TOP, SupervisorProcess, supervision

from sparktui.cli import main
from sparktui.engine.api import Happening, SuperviseEvent, reason_said
from sparktui.engine.workloads.serve import ServeSaid
from sparktui.i18n import install
from sparktui.present.supervision import event_line, status_line
from sparktui.said import Said, json_value

# A look-alike, not the real vLLM (tests/lookalike.py): the same serve under supervision,
# once per language; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def document(event: SuperviseEvent) -> dict:
    """An event as JSON would hold it: what it says as data, its step's progress."""
    return {"kind": event.kind.value, "text": json_value(event.text),
            "progress": event.progress.as_json() if event.progress else None}


def supervised_until_healthy(s, lang: str) -> list[SuperviseEvent]:
    """A foreground supervisor of ``toy`` in this process, under ``lang``: it adopts the
    group that runs, sees it healthy, and is interrupted there (the group keeps
    running)."""
    install(lang)
    events: list[SuperviseEvent] = []

    async def go() -> None:
        engine = s.engine()

        def heard(event: SuperviseEvent) -> None:
            events.append(event)
            if event.kind == Happening.HEALTHY:
                task.cancel()  # as Ctrl+C does

        task = asyncio.ensure_future(engine.supervise(s.plan("toy"), heard))
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            await engine.close()
    try:
        asyncio.run(go())
    finally:
        install("en")
    return events


def test_the_supervisors_events_are_the_same_data_in_every_language(site):
    s = site(2, top=TOP)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    try:
        runs = [supervised_until_healthy(s, lang) for lang in ("en", "ru")]
    finally:
        main(s.cli("stop", "--yes"))
    en, ru = ([document(e) for e in events] for events in runs)
    assert [e["kind"] for e in en] == ["armed", "adopted", "healthy", "interrupted"], en
    assert steady(ru) == steady(en)
    assert {"supervise_said.armed", "supervise_said.adopted", "supervise_said.healthy",
            "end_said.interrupted"} <= codes(en), en
    # the words are made where they are shown, in the language active then
    armed = runs[0][0]
    assert "supervising toy on test: every 1 s, at most 2 restarts in 600 s" in \
        event_line(armed, 0.0)
    install("ru")
    try:
        assert "надзор за toy на test" in event_line(armed, 0.0)
    finally:
        install("en")


def test_supervise_json_is_the_same_lines_in_every_language(site):
    """``supervise --json``: each event one line of codes and values, the last the result;
    a supervisor under ``ru`` writes what one under ``en`` does."""
    s = site(2, top=TOP)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    outputs = []
    try:
        for lang in ("en", "ru"):
            with SupervisorProcess(s, "toy", "--json", lang=lang) as sup:
                eventually(lambda sup=sup: '"event":"healthy"' in sup.output(), 120,
                           "the group seen healthy", explain=sup.output, every=0.2)
                sup.signal(signal.SIGINT)  # as Ctrl+C does
                assert sup.wait(60) == 0, sup.output()
                outputs.append(sup.output())
    finally:
        main(s.cli("stop", "--yes"))
    # stdout's lines (stderr is in the same file: a library's warning is no event)
    en, ru = ([json.loads(line) for line in text.splitlines() if line.startswith("{")]
              for text in outputs)
    assert [e.get("event") for e in en[:-1]] == ["armed", "adopted", "healthy",
                                                 "interrupted"], en
    assert en[-1]["result"] == ru[-1]["result"] == "interrupted", (en, ru)
    assert [steady(e) for e in ru] == [steady(e) for e in en]
    assert {"supervise_said.armed", "supervise_said.adopted", "supervise_said.healthy",
            "end_said.interrupted"} <= codes(en), en


RUN_OWN = {"lines", "last_lines", "holder"}
"""What two supervisors of the same group say of their own run: their pid, the failed
engine's last lines (node text, as it came)."""


def settled(value):
    """``value`` with what differs between two runs by itself set aside (``steady``)."""
    if isinstance(value, dict):
        return steady({k: "<run>" if k in RUN_OWN else settled(v) for k, v in value.items()})
    if isinstance(value, list):
        return [settled(v) for v in value]
    return steady(value)


def test_a_failed_serve_is_kept_as_its_code_and_read_in_the_readers_language(site):
    """A supervisor whose serve never answers gives up (#31): under ``ru`` it writes the
    same ``supervise --json`` lines and leaves the same record on the head as under
    ``en``: the serve's failure is kept as its code, not in the supervisor's words. A
    record written under ``ru`` reads in English, and one written under ``en`` in
    Russian."""
    s = site(2, top=TOP + "\nready_timeout_seconds = 2")
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "600"'))
    outputs, statuses = [], []
    for lang in ("ru", "en"):
        try:
            with SupervisorProcess(s, "toy", "--json", lang=lang) as sup:
                assert sup.wait(180) == 1, sup.output()  # gave up
                outputs.append(sup.output())
            statuses.append(supervision(s))  # as the head keeps it, before a stop clears it
        finally:
            main(s.cli("stop", "--yes"))
    ru, en = ([json.loads(line) for line in text.splitlines() if line.startswith("{")]
              for text in outputs)
    assert en[-1]["result"] == ru[-1]["result"] == "gave_up", (en, ru)
    # a wait is said as often as it polls: each line once
    assert {json.dumps(settled(e), sort_keys=True) for e in ru} == \
        {json.dumps(settled(e), sort_keys=True) for e in en}
    assert {"supervise_said.gave_up", "end_said.serve_failed", "serve_said.no_answer",
            "step_label.ready"} <= codes(en), en
    assert en[-1]["reason"]["detail"]["code"] == "serve_said.no_answer", en[-1]
    written_ru, written_en = statuses
    assert written_ru.state == written_en.state == "gave_up"
    assert settled(written_ru.as_dict()) == settled(written_en.as_dict())
    detail = written_ru.record.reason.values["detail"]
    assert isinstance(detail, Said) and detail.code is ServeSaid.NO_ANSWER, detail
    english = "serve failed on node1 at ready: no answer on /v1/models after 2 s"
    assert str(reason_said(written_ru.record.reason)) == english
    assert english in (status_line(written_ru, 0.0) or "")
    install("ru")
    try:
        russian = str(reason_said(written_en.record.reason))
        line = status_line(written_en, 0.0) or ""
    finally:
        install("en")
    assert russian == "запуск не удался на node1 на шаге готов: нет ответа на /v1/models за 2 с"
    assert russian in line and "no answer" not in line, line
