"""Secrets never shown: every form a secret can take in a message is replaced by stars.

Loading a config registers its secrets (the Home Assistant token). ``scrub`` is
applied at every edge where text leaves sparktui: the CLI's output, the dashboard's
progress and notifications, logging, and the Home Assistant client's own errors.
A secret reaches a message not only as itself: an HTTP library shows a header as
``repr(bytes)``, a server may echo it JSON-escaped or URL-encoded. Each of those
forms is replaced, longest first.
"""

from __future__ import annotations

STARS = "**********"
_SECRETS: set[str] = set()
_FORMS: list[str] = []
"""Every form of every registered secret, longest first."""
_MIN_LENGTH = 4
"""Shorter values would scrub ordinary words; the config refuses such tokens anyway."""


def register(secret: str) -> None:
    if len(secret) >= _MIN_LENGTH and secret not in _SECRETS:
        _SECRETS.add(secret)
        _FORMS[:] = _longest_first(_SECRETS)


_logging_scrubbed = False


def scrub_logging() -> None:
    """From now on every log record's message (and traceback) goes through ``scrub``.

    Called where a secret meets a library that logs (the Home Assistant client and its
    httpx), not at load: ``plan`` never imports logging.
    """
    global _logging_scrubbed
    if _logging_scrubbed:
        return
    _logging_scrubbed = True
    import logging

    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        message = scrub(record.getMessage())
        if message != record.msg or record.args:
            record.msg, record.args = message, None
        if record.exc_info and not record.exc_text:  # the formatter uses this text as is
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)


def forms(secret: str) -> set[str]:
    """The ways ``secret`` can be written in a message: raw, repr'd, escaped, URL-encoded."""
    import json
    from urllib.parse import quote, quote_plus

    out = {secret, repr(secret)[1:-1], repr(secret.encode("utf-8"))[2:-1],
           json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
           secret.encode("unicode_escape").decode("ascii"),
           secret.replace("\\", "\\\\"),
           quote(secret, safe=""), quote(secret), quote_plus(secret)}
    out |= {_lower_hex(f) for f in out if "%" in f}
    return {f for f in out if f}


def _lower_hex(text: str) -> str:
    parts = text.split("%")
    return parts[0] + "".join("%" + p[:2].lower() + p[2:] for p in parts[1:])


def _longest_first(secrets: set[str]) -> list[str]:
    return sorted({f for s in secrets for f in forms(s)}, key=len, reverse=True)


def scrub(text: str, secrets: set[str] | None = None) -> str:
    """``text`` with every form of every registered (or given) secret replaced by stars."""
    every = _FORMS if secrets is None else _longest_first(secrets)
    if not every or not text:
        return text
    for form in every:
        if form in text:
            text = text.replace(form, STARS)
    return text


SECRET_NAMES = ("_TOKEN", "_KEY", "_SECRET", "PASSWORD")
"""An environment variable whose name ends so holds a secret (``HF_TOKEN``,
``OPENAI_API_KEY``, ``AWS_SECRET``, ``DB_PASSWORD``): its value is never shown."""


def secret_name(name: str) -> bool:
    upper = name.upper()
    return upper.endswith(SECRET_NAMES) or upper in ("TOKEN", "KEY", "SECRET")


def mask_env(entries: list[str]) -> tuple[list[str], set[str]]:
    """``KEY=value`` entries (docker's ``Config.Env``) with every secret's value (and the
    registered ones) replaced by stars, and those values, to scrub wherever else they
    show (a command line, a label) with :func:`scrub_also`."""
    out, found = [], set()
    for entry in entries:
        name, sep, value = entry.partition("=")
        if sep and value and secret_name(name):
            found.add(value)
            entry = f"{name}={STARS}"
        out.append(scrub(entry))
    return out, found


def scrub_also(text: str, extra: set[str]) -> str:
    """``scrub`` of the registered secrets, then of ``extra`` (values found in an env):
    every form of each, raw, repr'd, escaped."""
    text = scrub(text)
    extra = {s for s in extra if len(s) >= _MIN_LENGTH}
    return scrub(text, extra) if extra else text


__all__ = ["SECRET_NAMES", "STARS", "forms", "mask_env", "register", "scrub", "scrub_also",
           "scrub_logging", "secret_name"]
