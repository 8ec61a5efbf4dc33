"""What an exception says, for a field that reports it: our own errors as data (their
code and values, the same in every language), anyone else's as its text."""

from __future__ import annotations

from sparktui.engine.remote.http import AnswerTooLarge
from sparktui.engine.remote.transport import NodeError
from sparktui.said import Text


def failure(exc: BaseException) -> Text:
    if isinstance(exc, (NodeError, AnswerTooLarge)):
        return exc.said
    return str(exc) or type(exc).__name__
