"""The grammar of every config and recipe string that is not free text.

A config or recipe may come from anyone: a shared repository, a colleague, a
download. Names end up in container names, labels, shell comments and the
dashboard; hosts and users on ssh's command line; images, sizes and paths on
docker's. Each kind of string has one grammar here, checked at load so that a bad
value is a located problem (file:line), never a flag, a second line or markup.
Free text (commands, args, env values, descriptions) may hold anything printable
plus tab and newline: ``control_char`` finds what no string may hold.

Every grammar is ASCII (explicit classes, compiled with ``re.ASCII``): Python's ``\\w``
and ``\\d`` are Unicode, so ``[\\w]`` took ``vllm:ｌatest`` (a full-width letter that reads
as ``latest``) and ``\\d`` takes Arabic-Indic digits.
"""

from __future__ import annotations

import re

NAME_MAX = 64
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", re.ASCII)
"""Clusters, nodes, recipes (their folders), services, pools, aliases, metrics."""
USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,31}", re.ASCII)
"""A POSIX user name (``ssh_user``): never an ssh option."""
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST = re.compile(rf"{_LABEL}(?:\.{_LABEL})*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*", re.ASCII)
"""A host name, an IPv4 address (a host name as far as the grammar goes) or IPv6."""
ENTITY = re.compile(r"[a-z0-9_]+\.[a-z0-9_]+", re.ASCII)
"""A Home Assistant entity id, ``domain.object_id``."""
ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}", re.ASCII)
NCCL_VALUE = re.compile(r"[A-Za-z0-9_.:,=^-]*", re.ASCII)
"""NCCL_IB_HCA / NCCL_SOCKET_IFNAME: device lists, ``^`` to exclude, ``=`` exact."""
SIZE = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,6})?(?:[kKmMgGtTpP][iI]?)?[bB]?", re.ASCII)
"""docker's sizes (``--shm-size``): ``16g``, ``64gb``, ``1024m``, ``1.5GiB``."""
TOKEN = re.compile(r"[\x21-\x7e]+", re.ASCII)
"""A secret sent in an HTTP header: printable ASCII, no spaces."""
TOKEN_MIN_LENGTH = 16
"""Home Assistant's long-lived tokens are ~180 characters; a short one is a mistake, and
one that short could not be scrubbed from messages without scrubbing ordinary words."""
URL = re.compile(r"https?://[\x21-\x7e]+", re.ASCII)
URL_PATH = re.compile(r"/[\x21-\x7e]*", re.ASCII)
HF_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*", re.ASCII)

# distribution/reference's grammar: [domain[:port]/]path[:tag][@digest].
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*" \
          r"[A-Za-z0-9])?)*|\[[0-9A-Fa-f:]+\])(?::[0-9]+)?"
IMAGE = re.compile(rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
                   r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
                   r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*"
                   r":[0-9a-fA-F]{32,})?", re.ASCII)
IMAGE_MAX = 255

# C0 and C1 controls but tab and newline; line/paragraph separators; bidi controls
# (a right-to-left override makes a command read differently from what runs).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_SPACE = re.compile(f"[\t\n]|{_CONTROL.pattern}")


def control_char(text: str, *, newlines: bool = True) -> str | None:
    """The first character no string may hold (``U+001B``), or None.

    With ``newlines=False`` tab and newline count too (names, keys, paths).
    """
    match = (_CONTROL if newlines else _CONTROL_OR_SPACE).search(text)
    return f"U+{ord(match.group(0)):04X}" if match else None


def is_name(text: str) -> bool:
    return NAME.fullmatch(text) is not None


def is_image(text: str) -> bool:
    return len(text) <= IMAGE_MAX and IMAGE.fullmatch(text) is not None


def path_problem(path: str, *, container: bool = False) -> str | None:
    """Why a mount path is refused (a problem code), or None.

    Host paths are absolute or start with ``~/`` (the node's home); container paths are
    absolute. Neither may hold ``:`` (docker's ``-v host:container:ro`` separator) or a
    control character.
    """
    if control_char(path, newlines=False):
        return "path_control"
    if ":" in path:
        return "path_separator"
    if container:
        return None if path.startswith("/") else "path_not_absolute"
    if not (path.startswith("/") or path == "~" or path.startswith("~/")):
        return "mount_host_relative"
    return None


DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
"""A content digest as docker and registries write it: an image's repo digest."""

SLURM_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", re.ASCII)
"""A Slurm partition, account, QOS or reservation name as sparktui accepts it."""
SLURM_TIME = re.compile(r"(?:[0-9]{1,4}-)?[0-9]{1,5}(?::[0-9]{1,2}){0,2}|UNLIMITED|INFINITE",
                        re.ASCII)
"""Slurm's ``--time`` forms: ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``, ``D-HH:MM``,
``D-HH:MM:SS``, or unlimited."""
