"""Run commands on a node over SSH (asyncssh); the built-in node: ``remote.local``.

One SSH connection per node is reused for every command and stream. OpenSSH's
default ``MaxSessions 10`` refuses the 11th channel on a connection, so each
connection carries at most ``CHANNELS_PER_CONNECTION`` channels and more
connections are opened when long-lived log streams fill them.

Every read is bounded (``remote.bounded``): a command's stdout and stderr keep at most
``OUTPUT_LIMIT`` bytes each (past it the command is ended and the node's error is "output
too large"), and a streamed line at most ``LINE_LIMIT`` characters (cut and marked).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sparktui.config.models import Config, Node
from sparktui.engine.deadline import within
from sparktui.engine.remote import hostkeys
from sparktui.engine.remote.bounded import (
    OUTPUT_LIMIT,
    TooLarge,
    command_shown,
    decode_output,
    output_too_large,
    read_bounded,
    split_lines,
)
from sparktui.engine.remote.node_error import NodeError, Reason

if TYPE_CHECKING:  # imported at the first connection: it costs ~0.15 s
    import asyncssh

CHANNELS_PER_CONNECTION = 8
KEEPALIVE_SECONDS = 15
# AES-GCM runs in OpenSSL with CPU AES instructions; asyncssh's default first choice,
# chacha20-poly1305, is assembled in Python and halves log throughput.
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
           "aes128-ctr", "aes256-ctr")


def timed_out(node: str, limit: float, command: str) -> NodeError:
    """A command's timeout, naming the command as ``command_shown`` does."""
    return NodeError(node, Reason.TIMEOUT, f"{limit:g} s: {command_shown(command)}")


# RFC 4254's names of a refused channel's codes, as sshd's own client shows them
_OPEN_FAILURES = {1: "administratively prohibited", 2: "connect failed",
                  3: "unknown channel type", 4: "resource shortage"}


def probe_error(node: str, exc: Exception) -> NodeError | None:
    """Why ``open_tcp`` failed, or None when it was refused (nothing listens there).

    A refusal is the local ``ConnectionRefusedError``, or sshd's ``connect failed`` for a
    direct-tcpip channel with its ``strerror``, "Connection refused" (OpenSSH reports
    every failed connect so, "No route to host" too). Anything else (forwarding
    prohibited, another connect error) is no answer about the port."""
    if isinstance(exc, ConnectionRefusedError):
        return None
    import asyncssh

    if isinstance(exc, asyncssh.ChannelOpenError):
        if exc.code == asyncssh.OPEN_CONNECT_FAILED and "refused" in exc.reason.lower():
            return None
        why = _OPEN_FAILURES.get(exc.code, str(exc.code))  # "open failed" alone says little
        return NodeError(node, Reason.CHANNEL_REFUSED,
                         f"{why} ({exc.reason})" if exc.reason else why)
    reason = Reason.UNREACHABLE if isinstance(exc, OSError) else Reason.SSH_ERROR
    return NodeError(node, reason, str(exc) or type(exc).__name__)


@dataclass(frozen=True)
class Completed:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class Stream(Protocol):
    """A running remote command whose output is read in batches of whole lines."""

    def chunks(self) -> AsyncIterator[list[str]]: ...
    async def stop(self) -> None: ...


class Transport(Protocol):
    node: Node

    @property
    def command_timeout(self) -> float:
        """How long a command may take when its caller names no timeout."""
        ...

    async def run(self, command: str, *, stdin: str | None = None,
                  timeout: float | None = None) -> Completed: ...
    async def stream(self, command: str) -> Stream: ...
    async def open_tcp(self, host: str, port: int, timeout: float | None = None
                       ) -> tuple[Any, Any]: ...
    async def open_unix(self, path: str, timeout: float | None = None
                        ) -> tuple[Any, Any]: ...
    async def close(self) -> None: ...


def argv_command(argv: Sequence[str]) -> str:
    """The one place an argv becomes a shell line: quoted once, at the edge."""
    return shlex.join(argv)


def ended_with_channel(command: str) -> str:
    """``command`` (which must ``exec`` its program) wrapped so that it ends when its SSH
    channel closes or its connection dies: OpenSSH's sshd ignores the channel's signal
    requests, and a quiet ``docker logs -f`` would otherwise follow on for ever. The
    channel's stdin is the watch: sshd closes it when the channel goes."""
    return ("exec 3<&0; { " + command + "\n} </dev/null & p=$!; "
            "{ read -r _ <&3; kill $p; } >/dev/null 2>&1 & w=$!; "
            "wait $p; rc=$?; kill $w 2>/dev/null; exit $rc")


# ---------------------------------------------------------------------------
# SSH
# ---------------------------------------------------------------------------

class _Conn:
    def __init__(self, conn: asyncssh.SSHClientConnection):
        self.conn = conn
        self.in_use = 0
        self.closed = False


class SshTransport:
    def __init__(self, node: Node, config: Config, known_hosts: Path):
        self.node = node
        self._config = config
        self._known_hosts = known_hosts
        self._conns: list[_Conn] = []
        self._lock = asyncio.Lock()  # guards the pool's bookkeeping
        self._connecting = asyncio.Lock()  # one new connection at a time

    @property
    def command_timeout(self) -> float:
        return self._config.command_timeout_seconds

    # -- connections -----------------------------------------------------------
    async def _connect(self) -> _Conn:
        import asyncssh

        from sparktui.engine.remote.connect_errors import Attempt, connect_error, key_missing

        cfg = self._config
        key = str(Path(cfg.ssh_key_path).expanduser()) if cfg.ssh_key_path else None
        attempt = Attempt(self.node.name, self.node.ssh_ip, self.node.ssh_port, cfg.ssh_user,
                          key, self._known_hosts, cfg.connect_timeout_seconds)
        if (missing := key_missing(attempt)) is not None:
            raise missing
        # Never disabled: a missing file trusts no key (run `sparktui init-host-keys`).
        # Every key type is offered, the pinned ones first: a node without a key of a
        # pinned type shows another, refused as not trusted (sshd hangs up on a client
        # offering only types it lacks, which would read as a timeout).
        try:
            pins = hostkeys.pins(self._known_hosts, self.node)
        except (OSError, ValueError) as exc:  # unreadable, or a line asyncssh rejects
            raise attempt.error(Reason.HOST_KEY_NOT_TRUSTED,
                                f"{self._known_hosts}: {exc}") from None
        try:
            conn = await within(asyncssh.connect(
                self.node.ssh_ip, self.node.ssh_port, username=cfg.ssh_user,
                client_keys=[key] if key else None, known_hosts=pins.known_hosts,
                agent_path=None, server_host_key_algs=pins.host_key_algs,
                encryption_algs=list(CIPHERS),
                keepalive_interval=KEEPALIVE_SECONDS, keepalive_count_max=3,
                connect_timeout=cfg.connect_timeout_seconds,
                login_timeout=cfg.connect_timeout_seconds,
            ), cfg.connect_timeout_seconds)
        except (TimeoutError, OSError, asyncssh.Error, asyncssh.KeyImportError) as exc:
            raise connect_error(attempt, exc) from None
        return _Conn(conn)

    async def _take_slot(self) -> _Conn | None:
        async with self._lock:
            self._conns = [c for c in self._conns if not c.closed]
            for holder in self._conns:
                if holder.in_use < CHANNELS_PER_CONNECTION:
                    holder.in_use += 1
                    return holder
        return None

    async def _acquire(self) -> _Conn:
        """A channel slot, opening a connection only when every open one is full.

        Callers that arrive together wait for one new connection instead of each
        opening their own.
        """
        holder = await self._take_slot()
        if holder is not None:
            return holder
        async with self._connecting:
            holder = await self._take_slot()
            if holder is not None:
                return holder
            holder = await self._connect()
            async with self._lock:
                holder.in_use += 1
                self._conns.append(holder)
            return holder

    async def _release(self, holder: _Conn, broken: bool = False) -> None:
        async with self._lock:
            holder.in_use -= 1
            if broken:
                holder.closed = True
                holder.conn.abort()

    # -- commands --------------------------------------------------------------
    async def run(self, command: str, *, stdin: str | None = None,
                  timeout: float | None = None) -> Completed:
        import asyncssh

        limit = timeout or self._config.command_timeout_seconds
        holder = await self._acquire()
        broken = False
        try:
            return await within(_run(holder.conn, command, stdin), limit)
        except TooLarge as exc:
            raise NodeError(self.node.name, Reason.OUTPUT_TOO_LARGE,
                            output_too_large(exc.limit, command)) from None
        except TimeoutError:
            raise timed_out(self.node.name, limit, command) from None
        except (asyncssh.ConnectionLost, asyncssh.DisconnectError, OSError) as exc:
            broken = True
            raise NodeError(self.node.name, Reason.CONNECTION_LOST, str(exc)) from None
        except asyncssh.ChannelOpenError as exc:
            raise NodeError(self.node.name, Reason.CHANNEL_REFUSED, exc.reason) from None
        finally:
            await self._release(holder, broken)

    async def stream(self, command: str) -> Stream:
        import asyncssh

        holder = await self._acquire()
        try:
            process = await holder.conn.create_process(ended_with_channel(command),
                                                       stderr=asyncssh.STDOUT)
        except (asyncssh.Error, OSError) as exc:
            await self._release(holder, broken=isinstance(exc, (OSError, asyncssh.ConnectionLost)))
            raise NodeError(self.node.name, Reason.STREAM_FAILED, str(exc)) from None
        return _SshStream(self.node.name, process,
                          lambda broken=False: self._release(holder, broken))

    async def open_tcp(self, host: str, port: int, timeout: float | None = None
                       ) -> tuple[Any, Any]:
        return await self._open(lambda conn: conn.open_connection(host, port), timeout)

    async def open_unix(self, path: str, timeout: float | None = None
                        ) -> tuple[Any, Any]:
        """A stream to the node's Unix socket ``path`` (OpenSSH's stream-local
        forwarding, on unless ``AllowStreamLocalForwarding no``)."""
        return await self._open(lambda conn: conn.open_unix_connection(path), timeout)

    async def _open(self, opener: Any, timeout: float | None) -> tuple[Any, Any]:
        holder = await self._acquire()
        try:
            reader, writer = await within(
                opener(holder.conn), timeout or self._config.command_timeout_seconds)
        except BaseException:
            await self._release(holder)
            raise
        return reader, _ReleasingWriter(writer, lambda: self._release(holder))

    async def close(self) -> None:
        async with self._lock:
            conns, self._conns = self._conns, []
        for holder in conns:
            holder.conn.close()
        for holder in conns:
            with contextlib.suppress(Exception):
                await holder.conn.wait_closed()


async def _run(conn: Any, command: str, stdin: str | None) -> Completed:
    """``conn.run`` with its stdout and stderr read up to ``OUTPUT_LIMIT`` (``TooLarge``
    past it: the channel is closed, the command ends on its next write). A command
    which ends before it has read its input (it answered from what it had: a lease
    already held, say) is its answer, not a lost connection: asyncssh's own ``input=``
    raises BrokenPipeError then."""
    process = await conn.create_process(command, encoding=None)
    try:
        if stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write(stdin.encode())
                process.stdin.write_eof()
        out, err = await asyncio.gather(read_bounded(process.stdout, OUTPUT_LIMIT),
                                        read_bounded(process.stderr, OUTPUT_LIMIT))
        await process.wait_closed()
        code = process.exit_status if process.exit_status is not None else 255
        return Completed(code, decode_output(out), decode_output(err))
    finally:
        process.close()


class _SshStream:
    def __init__(self, node: str, process: asyncssh.SSHClientProcess, release: Any):
        self._node = node
        self._process = process
        self._release = release
        self._released = False
        self._broken = False

    async def chunks(self) -> AsyncIterator[list[str]]:
        """Batches of lines; a lost connection is a NodeError (callers reconnect), never
        a silent end of the stream."""
        import asyncssh

        try:
            async for lines in split_lines(self._process.stdout):
                yield lines
        except (asyncssh.Error, OSError) as exc:
            self._broken = True
            raise NodeError(self._node, Reason.CONNECTION_LOST, str(exc)) from None
        if self._process.exit_status is None and self._process.exit_signal is None \
                and self._process.channel.get_connection().is_closed():
            self._broken = True
            raise NodeError(self._node, Reason.CONNECTION_LOST, "")

    async def stop(self) -> None:
        """End the remote command: its stdin's end is what ``ended_with_channel`` waits
        for (the signal is for servers that honour it)."""
        if self._released:
            return
        self._released = True
        with contextlib.suppress(Exception):
            if self._process.exit_status is None:
                self._process.stdin.write_eof()
                self._process.terminate()
        with contextlib.suppress(Exception):
            self._process.close()
            await within(self._process.wait_closed(), 2)
        await self._release(self._broken)


class _ReleasingWriter:
    """A TCP writer that frees its channel slot when closed."""

    def __init__(self, writer: Any, release: Any):
        self._writer = writer
        self._release = release
        self._done = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)

    def close(self) -> None:
        self._writer.close()
        if not self._done:
            self._done = True
            asyncio.get_running_loop().create_task(self._release())
