"""The words for the engine's steps and states cover exactly the codes it emits."""

from __future__ import annotations

from sparktui.engine.api import Step, StepState
from sparktui.labels import STATES, STEPS, state_label, step_label


def test_every_step_has_words_and_every_word_a_step() -> None:
    assert set(STEPS) == set(Step)
    assert all(isinstance(key, Step) for key in STEPS)


def test_every_state_has_words_and_every_word_a_state() -> None:
    assert set(STATES) == set(StepState)
    assert all(isinstance(key, StepState) for key in STATES)


def test_codes_read_as_strings_and_unknown_codes_pass_through() -> None:
    assert Step.BEFORE_SERVE == "before_serve" and f"{Step.POWER_OFF}" == "power_off"
    assert step_label("before_serve") == "before_serve"  # shown by its code before: unchanged
    assert step_label("service") == "service"
    assert step_label("-") == "-" and state_label("ok") == "ok"
