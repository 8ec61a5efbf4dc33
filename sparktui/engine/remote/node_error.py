"""Why a node could not do what was asked: a ``Reason`` code, the detail, a hint.

Its own light module: the front-ends catch and show a ``NodeError`` (through
``sparktui.engine.api``) without importing the SSH transport that raises it.
"""

from __future__ import annotations

from sparktui.i18n import N_
from sparktui.said import Code, Layout, Said, Text, joined, said


class Reason(str, Code):
    """Why a node could not do what was asked: the code JSON and comparisons read (its
    value, the English words), translated when shown."""

    HOST_KEY_NOT_TRUSTED = N_("host key not trusted")
    AUTHENTICATION_FAILED = N_("authentication failed")
    TIMEOUT = N_("timeout")
    UNREACHABLE = N_("unreachable")
    SSH_ERROR = N_("ssh error")
    CONNECTION_LOST = N_("connection lost")
    CHANNEL_REFUSED = N_("channel refused")
    STREAM_FAILED = N_("stream failed")
    DOCKER_UNREACHABLE = N_("docker unreachable")
    TMUX_UNREACHABLE = N_("tmux unreachable")
    OUTPUT_TOO_LARGE = N_("output too large")
    SSH_KEY_MISSING = N_("ssh key missing")  # the connection's own (connect_errors.py)
    SSH_KEY_UNREADABLE = N_("ssh key unreadable")
    CONNECTION_CLOSED = N_("connection closed")
    DOCKER_INSPECT_FAILED = N_("docker inspect failed")
    INSPECT_NO_CONTAINER = N_("docker inspect gave no container")


class NodeError(Exception):
    """A node could not do what was asked: ``reason``, the detail (what the node said, or
    a sentence), and what to do about it (``hint``, when known: connect_errors.py)."""

    def __init__(self, node: str, reason: Reason, detail: Text = "", hint: Said | None = None):
        self.node, self.reason, self.detail = node, reason, detail
        self.hint = hint
        super().__init__(f"{node}: {self.text}")

    @property
    def said(self) -> Said:
        """The reason and the detail, as data."""
        return joined(Layout.COLON, said(self.reason), self.detail) if self.detail \
            else said(self.reason)

    @property
    def said_with_hint(self) -> Said:
        """``said``, and the fix when there is one."""
        return joined(Layout.SEMICOLON, self.said, self.hint) if self.hint else self.said

    @property
    def text(self) -> str:
        """The reason in the active language, and the detail: what people read."""
        return str(self.said)
