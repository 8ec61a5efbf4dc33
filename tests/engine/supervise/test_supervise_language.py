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
from supervise_support import TOP, SupervisorProcess

from sparktui.cli import main
from sparktui.engine.api import Happening, SuperviseEvent
from sparktui.i18n import install
from sparktui.present.supervision import event_line
from sparktui.said import json_value

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
