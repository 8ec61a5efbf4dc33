"""Why an SSH connection to a node could not be made, each cause with its own reason and
the fix it points at (``NodeError.hint``, templates in ``sparktui.errors.SSH_HINTS``).

A missing key file is no dead network, a refused key no untrusted host, and a server
that closes the connection at once no timeout: each reads as what it is, once (the
reason is not repeated in the detail), so the first error a new user meets says which
file or setting to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparktui.engine.remote.transport import NodeError
from sparktui.errors import SSH_HINTS
from sparktui.fmt import format_seconds
from sparktui.i18n import N_, _

# The reasons of this module, marked for translation (transport.REASONS has the rest).
REASONS = (N_("ssh key missing"), N_("ssh key unreadable"), N_("connection closed"))


@dataclass(frozen=True)
class Attempt:
    """What a connection was tried with: the values the hints name."""

    node: str
    host: str
    port: int
    user: str
    key: str | None  # ssh_key_path, ~ expanded; None: asyncssh's default keys
    known_hosts: Path
    timeout: float

    def error(self, reason: str, detail: str) -> NodeError:
        key = self.key or _("the default keys in ~/.ssh")
        hint = _(SSH_HINTS[reason]).format(
            key=key, user=self.user, host=self.host, port=self.port, node=self.node,
            known_hosts=self.known_hosts, seconds=format_seconds(self.timeout))
        return NodeError(self.node, reason, detail, hint=hint)


def key_missing(attempt: Attempt) -> NodeError | None:
    """The configured key file is not there: said before any connection is tried."""
    if attempt.key is None or Path(attempt.key).is_file():
        return None
    return attempt.error("ssh key missing", _("{path} (ssh_key_path) does not exist").format(
        path=attempt.key))


def connect_error(attempt: Attempt, exc: BaseException) -> NodeError:
    """The ``NodeError`` for what ``asyncssh.connect`` raised (or a wait for it)."""
    import asyncssh

    if isinstance(exc, asyncssh.HostKeyNotVerifiable):
        return attempt.error("host key not trusted", exc.reason)
    if isinstance(exc, asyncssh.PermissionDenied):
        return attempt.error("authentication failed", exc.reason)
    if isinstance(exc, asyncssh.KeyImportError):
        return attempt.error("ssh key unreadable", f"{attempt.key}: {exc}")
    if isinstance(exc, TimeoutError):
        return attempt.error("timeout", _("no SSH answer in {seconds}").format(
            seconds=format_seconds(attempt.timeout)))
    if isinstance(exc, (asyncssh.ConnectionLost, ConnectionResetError)):  # closed before
        # it said anything (a reset when the close beat the client's first bytes)
        return attempt.error("connection closed", _(
            "the node's sshd closed the connection before login"))
    if isinstance(exc, OSError):
        if attempt.key is not None and exc.filename is not None \
                and str(exc.filename) == attempt.key:
            return attempt.error("ssh key unreadable", f"{attempt.key}: {exc.strerror}")
        return attempt.error("unreachable", exc.strerror or str(exc))
    if isinstance(exc, asyncssh.Error):
        return attempt.error("ssh error", exc.reason)
    raise exc
