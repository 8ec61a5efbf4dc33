"""Secrets never shown: one rule for which values are secret, and every form they take.

Two ways a secret is found. **By position**: a value whose field says it is a secret
(``sparktui.secrets``: an env entry or a key named like one, the value after
``--api-key``, a URL's password) is replaced by stars whatever its length, in
structured data (argv lists, env maps, ``docker inspect``'s object), never in
serialized text. **By value**: the registered secrets (the Home Assistant token,
registered when the config loads) and the values found by position are replaced
wherever else a string holds them, in every form a message can show them: raw,
repr'd, escaped, URL-encoded, HTML entities, base64. Values under 4 characters are
only ever masked by position (searched for, they would scrub ordinary words).

``scrub`` is applied at every edge where text leaves sparktui: the CLI's output, the
dashboard's progress and notifications, logging, and the Home Assistant client's errors.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

STARS = "**********"
_SECRETS: set[str] = set()
_FORMS: list[str] = []
"""Every form of every registered secret, longest first."""
MIN_LENGTH = 4
"""Shorter values are masked by position only: searched for, they would scrub words."""
_MIN_BASE64 = 8
"""A base64 fragment shorter than this would match ordinary text."""


def register(secret: str) -> None:
    if len(secret) >= MIN_LENGTH and secret not in _SECRETS:
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
        message = scrub(redact_url(record.getMessage()))
        if message != record.msg or record.args:
            record.msg, record.args = message, None
        if record.exc_info and not record.exc_text:  # the formatter uses this text as is
            record.exc_text = scrub(redact_url(
                logging.Formatter().formatException(record.exc_info)))
        return record

    logging.setLogRecordFactory(factory)


def forms(secret: str) -> set[str]:
    """The ways ``secret`` can be written in a message: raw, repr'd, escaped, URL-encoded,
    as HTML (entities for every character, or only for ``&<>"'``), and in base64 (at each
    of the three alignments it can have inside a longer encoded text)."""
    import json
    from urllib.parse import quote, quote_plus

    out = {secret, repr(secret)[1:-1], repr(secret.encode("utf-8"))[2:-1],
           json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
           secret.encode("unicode_escape").decode("ascii"),
           secret.replace("\\", "\\\\"),
           quote(secret, safe=""), quote(secret), quote_plus(secret)}
    out |= {_lower_hex(f) for f in out if "%" in f}
    out |= _html_forms(secret) | _base64_forms(secret)
    return {f for f in out if f}


def _lower_hex(text: str) -> str:
    parts = text.split("%")
    return parts[0] + "".join("%" + p[:2].lower() + p[2:] for p in parts[1:])


def _html_forms(secret: str) -> set[str]:
    return {html.escape(secret), html.escape(secret, quote=False),
            "".join(f"&#x{ord(c):x};" for c in secret),
            "".join(f"&#x{ord(c):X};" for c in secret),
            "".join(f"&#{ord(c)};" for c in secret)}


def _base64_forms(secret: str) -> set[str]:
    """The characters of ``base64(prefix + secret + suffix)`` that only ``secret``'s bytes
    decide, for a prefix of 0, 1 or 2 bytes: the secret's base64 wherever it sits."""
    data, out = secret.encode("utf-8"), set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii").rstrip("=")
        total = shift + len(data)
        end = 4 * (total // 3) + (total % 3)  # the last partial group: only whole chars
        fragment = encoded[(0, 2, 3)[shift]:end]
        if len(fragment) >= _MIN_BASE64:
            out |= {fragment, fragment.replace("+", "-").replace("/", "_")}
    return out


def _longest_first(secrets: Iterable[str]) -> list[str]:
    return sorted({f for s in secrets for f in forms(s)}, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every form of every registered (or given) secret replaced by stars."""
    every = _FORMS if secrets is None else _longest_first(
        s for s in secrets if len(s) >= MIN_LENGTH)
    return _replace(text, every)


def _replace(text: str, every: list[str]) -> str:
    if not every or not text:
        return text
    for form in every:
        if form in text:
            text = text.replace(form, STARS)
    return text


def scrub_also(text: str, extra: set[str]) -> str:
    """``scrub`` of the registered secrets, then of ``extra`` (values found by position):
    every form of each of at least 4 characters."""
    text = scrub(text)
    return scrub(text, extra) if extra else text



# -- the rule: which fields hold a secret ---------------------------------------------------

SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY",
                "CREDENTIAL", "CREDENTIALS")
"""A name one of whose parts ends so holds a secret: ``HF_TOKEN``, ``AWS_SESSION_TOKEN_V2``,
``OPENAI_APIKEY``, ``DB_PASSWD``, ``--password``, ``accessToken``."""
_SECRET_PARTS = frozenset({"KEY", "PASS", "PWD"})
"""A part that is exactly one of these too: ``VLLM_API_KEY``, ``--api-key``, ``DB_PASS``
(not ``MAX_TOKENS``, ``--tokenizer`` or ``KEYFILE``)."""
_NAME_PARTS = re.compile(r"[^A-Z0-9]+")


def secret_name(name: str) -> bool:
    """Whether an env variable, an option (``--api-key``) or a key holding ``name`` is a
    secret: the one rule inspect, bench, plans and printed argv share."""
    parts = _NAME_PARTS.split(name.upper())
    return any(p in _SECRET_PARTS or p.endswith(SECRET_WORDS) for p in parts if p)


_OPTION = re.compile(r"(--?[A-Za-z][\w.-]*)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\s]*)@")
_QUERY = re.compile(r"([?&;])([^=&#\s]+)=([^&#\s]*)")
_WORD = r"""('[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|<>()'"`]+)"""
_IN_TEXT = (
    re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_]*)(=)" + _WORD),   # HF_TOKEN=value
    re.compile(r"(?<![\w-])(--?[A-Za-z][\w.-]*)(=)" + _WORD),       # --api-key=value
    re.compile(r"(?<![\w-])(--?[A-Za-z][\w.-]*)([ \t]+)(?!-)" + _WORD),  # --api-key value
    re.compile(r'"([^"\\]{1,100})"(\s*:\s*)("(?:[^"\\]|\\.)*")'),    # "api_key": "value"
)


def _unquoted(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def redact_url(text: str, found: set[str] | None = None) -> str:
    """``text`` with every URL's userinfo (``admin:pw@``: the password, or a lone user that
    may be a token) and every query value named like a secret (``?api_password=``) as stars."""
    def userinfo(match: re.Match[str]) -> str:
        user, sep, password = match[2].partition(":")
        secret = password if sep else user
        if not secret:
            return match[0]
        if found is not None:
            found.add(secret)
        return f"{match[1]}{user + ':' if sep else ''}{STARS}@"

    def query(match: re.Match[str]) -> str:
        from urllib.parse import unquote

        if not match[3] or not secret_name(unquote(match[2])):
            return match[0]
        if found is not None:
            found.add(match[3])
            found.add(unquote(match[3]))
        return f"{match[1]}{match[2]}={STARS}"

    if "@" in text:
        text = _USERINFO.sub(userinfo, text)
    return _QUERY.sub(query, text) if "=" in text else text


def mask_text(text: str, found: set[str] | None = None) -> str:
    """One string (a ``sh -c`` script, a label, a command line) with the values its own
    fields name as secrets masked: ``NAME=value``, ``--api-key value``, ``"token": "…"``,
    URL passwords. Each value masked is added to ``found``."""
    def field(match: re.Match[str]) -> str:
        if not secret_name(match[1]) or not _unquoted(match[3]):
            return match[0]
        if found is not None:
            found.add(_unquoted(match[3]))
        return match[0][: match.start(3) - match.start(0)] + STARS

    text = redact_url(text, found)
    for pattern in _IN_TEXT:
        text = pattern.sub(field, text)
    return text


def secret_fields(argv: list[str]) -> list[tuple[int, str, str, str]]:
    """The secret values of an argv by position: ``(index, prefix, value, name)`` where
    ``argv[index] == prefix + value``; ``name`` is the env variable's (``-e HF_TOKEN=…``)
    or one made from the option (``--api-key X``: ``SPARKTUI_SECRET_API_KEY``)."""
    out: list[tuple[int, str, str, str]] = []
    for i, arg in enumerate(argv):
        option = _OPTION.fullmatch(arg)
        if option and secret_name(arg) and i + 1 < len(argv) and argv[i + 1] \
                and not argv[i + 1].startswith("-"):
            out.append((i + 1, "", argv[i + 1], _option_variable(arg)))
            continue
        name, sep, value = arg.partition("=")
        if not (sep and value and secret_name(name)):
            continue
        if _OPTION.fullmatch(name):
            out.append((i, name + "=", value, _option_variable(name)))
        elif _ENV_NAME.fullmatch(name):
            out.append((i, name + "=", value, name))
    return out


def _option_variable(option: str) -> str:
    return "SPARKTUI_SECRET_" + _NAME_PARTS.sub("_", option.upper()).strip("_")


def mask_argv(argv: list[str], found: set[str] | None = None) -> list[str]:
    """An argv with each secret value replaced by stars by its position (any length),
    and the secrets inside its other words (a ``sh -c`` script, a label) by ``mask_text``."""
    out = list(argv)
    fields = {i: (prefix, value) for i, prefix, value, _n in secret_fields(argv)}
    for i, arg in enumerate(argv):
        if i in fields:
            prefix, value = fields[i]
            if found is not None:
                found.add(value)
            out[i] = prefix + STARS
        else:
            out[i] = mask_text(arg, found)
    return out


def mask_env(entries: list[str]) -> tuple[list[str], set[str]]:
    """``KEY=value`` entries (docker's ``Config.Env``) masked by the rule, and the values
    found, to scrub wherever else they show (:func:`scrub_also`)."""
    found: set[str] = set()
    return mask_argv(entries, found), found


def mask_env_map(env: Mapping[str, str], found: set[str] | None = None) -> dict[str, str]:
    """An env map with each secret-named variable's value as stars (any length), the
    others through ``mask_text`` (a password in ``DATABASE_URL``)."""
    out = {}
    for key, value in env.items():
        if secret_name(key) and value:
            if found is not None:
                found.add(value)
            out[key] = STARS
        else:
            out[key] = mask_text(value, found)
    return out


def mask_data(data: Any) -> Any:
    """JSON-like data (``docker inspect``'s object, a plan's or a run's dict) with every
    secret masked on its values: by position first (keys named like secrets, argv lists,
    env entries, URLs), then every value so found, and each registered secret, wherever
    a string (or a key) holds it. Never masks serialized text, so any value is safe."""
    found: set[str] = set()
    positioned = _by_position(data, found)
    return _by_value(positioned, _longest_first(
        {s for s in found if len(s) >= MIN_LENGTH} | _SECRETS))


def _by_position(data: Any, found: set[str]) -> Any:
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            scalar = isinstance(value, str | int | float) and not isinstance(value, bool)
            if scalar and secret_name(str(key)) and value != "":
                found.add(str(value))
                out[key] = STARS
            else:
                out[key] = _by_position(value, found)
        return out
    if isinstance(data, list):
        if data and all(isinstance(item, str) for item in data):
            return mask_argv(data, found)
        return [_by_position(item, found) for item in data]
    if isinstance(data, str):
        return mask_text(data, found)
    return data


def _by_value(data: Any, every: list[str]) -> Any:
    if isinstance(data, dict):
        return {(_replace(k, every) if isinstance(k, str) else k): _by_value(v, every)
                for k, v in data.items()}
    if isinstance(data, list):
        return [_by_value(item, every) for item in data]
    if isinstance(data, str):
        return _replace(data, every)
    return data


__all__ = ["MIN_LENGTH", "SECRET_WORDS", "STARS", "forms", "mask_argv", "mask_data",
           "mask_env", "mask_env_map", "mask_text", "redact_url", "register", "scrub",
           "scrub_also", "scrub_logging", "secret_fields", "secret_name"]
