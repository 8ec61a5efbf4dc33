"""Why an SSH connection to a node could not be made, each cause with its own reason and
the fix it points at (``NodeError.hint``: ``Hint``).

A missing key file is no dead network, a refused key no untrusted host, and a server
that closes the connection at once no timeout: each reads as what it is, once (the
reason is not repeated in the detail), so the first error a new user meets says which
file or setting to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparktui.engine.remote.transport import NodeError, Reason
from sparktui.i18n import N_
from sparktui.said import Code, Said, Seconds, Text, said


class Hint(Code):
    """Why an SSH connection failed, by reason: the fix."""

    SSH_KEY_MISSING = N_("create the key (ssh-keygen -t ed25519 -f {key}) and add {key}.pub to "
                         "~/.ssh/authorized_keys on the nodes, or set ssh_key_path in the config "
                         "to your key")
    SSH_KEY_UNREADABLE = N_("ssh_key_path must name a private key you can read, without a "
                            "passphrase (sparktui uses no agent)")
    AUTHENTICATION_FAILED = N_("{node} does not accept {key} (ssh_key_path) for user {user}: add "
                               "its public key to the node's ~/.ssh/authorized_keys, e.g. "
                               "ssh-copy-id -i {key} -p {port} {user}@{host}")
    HOST_KEY_NOT_TRUSTED = N_("no trusted host key of {host}:{port} in {known_hosts}: run "
                              "sparktui init-host-keys (if the node was not reinstalled, a new "
                              "key means something else may answer at its address)")
    CONNECTION_CLOSED = N_("{host}:{port} took the connection and closed it at once: its sshd "
                           "refuses this client (MaxStartups, AllowUsers/DenyUsers, fail2ban, TCP "
                           "wrappers); see sshd's log on the node")
    TIMEOUT = N_("nothing answered SSH on {host}:{port} within {seconds}: is the node on, and are "
                 "the address and the port right?")
    UNREACHABLE = N_("is the node on? check {host}:{port} (the address, the port, that sshd runs "
                     "there)")
    SSH_ERROR = N_("ssh to it by hand (ssh -p {port} {user}@{host}) to see what its sshd says")
    DEFAULT_KEYS = N_("the default keys in ~/.ssh")  # {key} when ssh_key_path is not set


HINTS = {Reason.SSH_KEY_MISSING: Hint.SSH_KEY_MISSING,
         Reason.SSH_KEY_UNREADABLE: Hint.SSH_KEY_UNREADABLE,
         Reason.AUTHENTICATION_FAILED: Hint.AUTHENTICATION_FAILED,
         Reason.HOST_KEY_NOT_TRUSTED: Hint.HOST_KEY_NOT_TRUSTED,
         Reason.CONNECTION_CLOSED: Hint.CONNECTION_CLOSED, Reason.TIMEOUT: Hint.TIMEOUT,
         Reason.UNREACHABLE: Hint.UNREACHABLE, Reason.SSH_ERROR: Hint.SSH_ERROR}


class ConnectDetail(Code):
    KEY_NOT_THERE = N_("{path} (ssh_key_path) does not exist")
    NO_ANSWER = N_("no SSH answer in {seconds}")
    CLOSED = N_("the node's sshd closed the connection before login")


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

    def error(self, reason: Reason, detail: Text) -> NodeError:
        hint = HINTS[reason]
        values = {"key": self.key or said(Hint.DEFAULT_KEYS), "user": self.user,
                  "host": self.host, "port": self.port, "node": self.node,
                  "known_hosts": str(self.known_hosts), "seconds": Seconds(self.timeout)}
        return NodeError(self.node, reason, detail,
                         hint=Said(hint, {k: v for k, v in values.items() if k in hint.fields}))


def key_missing(attempt: Attempt) -> NodeError | None:
    """The configured key file is not there: said before any connection is tried."""
    if attempt.key is None or Path(attempt.key).is_file():
        return None
    return attempt.error(Reason.SSH_KEY_MISSING,
                         said(ConnectDetail.KEY_NOT_THERE, path=attempt.key))


def connect_error(attempt: Attempt, exc: BaseException) -> NodeError:
    """The ``NodeError`` for what ``asyncssh.connect`` raised (or a wait for it)."""
    import asyncssh

    if isinstance(exc, asyncssh.HostKeyNotVerifiable):
        return attempt.error(Reason.HOST_KEY_NOT_TRUSTED, exc.reason)
    if isinstance(exc, asyncssh.PermissionDenied):
        return attempt.error(Reason.AUTHENTICATION_FAILED, exc.reason)
    if isinstance(exc, asyncssh.KeyImportError):
        return attempt.error(Reason.SSH_KEY_UNREADABLE, f"{attempt.key}: {exc}")
    if isinstance(exc, TimeoutError):
        return attempt.error(Reason.TIMEOUT, said(ConnectDetail.NO_ANSWER,
                                                   seconds=Seconds(attempt.timeout)))
    if isinstance(exc, (asyncssh.ConnectionLost, ConnectionResetError)):  # closed before
        # it said anything (a reset when the close beat the client's first bytes)
        return attempt.error(Reason.CONNECTION_CLOSED, said(ConnectDetail.CLOSED))
    if isinstance(exc, OSError):
        if attempt.key is not None and exc.filename is not None \
                and str(exc.filename) == attempt.key:
            return attempt.error(Reason.SSH_KEY_UNREADABLE, f"{attempt.key}: {exc.strerror}")
        return attempt.error(Reason.UNREACHABLE, exc.strerror or str(exc))
    if isinstance(exc, asyncssh.Error):
        return attempt.error(Reason.SSH_ERROR, exc.reason)
    raise exc
