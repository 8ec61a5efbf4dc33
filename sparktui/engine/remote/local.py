"""The built-in cluster's node: this machine, its commands run without SSH.

A command's stdout and stderr are read up to ``OUTPUT_LIMIT`` each, as over SSH: past
it the command (its whole process group) is killed and the error is "output too large".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

from sparktui.config.models import Config, Node
from sparktui.engine.deadline import within
from sparktui.engine.remote.bounded import (
    OUTPUT_LIMIT,
    TooLarge,
    decode_output,
    output_too_large,
    read_bounded,
    split_lines,
)
from sparktui.engine.remote.transport import Completed, NodeError, Reason, Stream, timed_out


class LocalTransport:
    def __init__(self, node: Node, config: Config):
        self.node = node
        self._config = config

    @property
    def command_timeout(self) -> float:
        return self._config.command_timeout_seconds

    async def run(self, command: str, *, stdin: str | None = None,
                  timeout: float | None = None) -> Completed:
        limit = timeout or self._config.command_timeout_seconds
        proc = await asyncio.create_subprocess_exec(
            "sh", "-c", command, stdin=asyncio.subprocess.PIPE if stdin is not None else
            asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True)
        try:
            out, err = await within(_communicate(proc, stdin), limit)
        except (TimeoutError, TooLarge) as exc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the shell and what it started
            with contextlib.suppress(Exception):
                await within(proc.wait(), 5)
            if isinstance(exc, TooLarge):
                raise NodeError(self.node.name, Reason.OUTPUT_TOO_LARGE,
                                output_too_large(exc.limit, command)) from None
            raise timed_out(self.node.name, limit, command) from None
        return Completed(proc.returncode or 0, decode_output(out), decode_output(err))

    async def stream(self, command: str) -> Stream:
        proc = await asyncio.create_subprocess_exec(
            "sh", "-c", command, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True, limit=1 << 20)
        return _LocalStream(proc)

    async def open_tcp(self, host: str, port: int, timeout: float | None = None
                       ) -> tuple[Any, Any]:
        return await within(asyncio.open_connection(host, port),
                                      timeout or self._config.command_timeout_seconds)

    async def open_unix(self, path: str, timeout: float | None = None
                        ) -> tuple[Any, Any]:
        return await within(asyncio.open_unix_connection(path),
                                      timeout or self._config.command_timeout_seconds)

    async def close(self) -> None:
        return None


async def _communicate(proc: asyncio.subprocess.Process,
                       stdin: str | None) -> tuple[bytes, bytes]:
    """``proc.communicate`` with each output read up to ``OUTPUT_LIMIT``."""
    assert proc.stdout is not None and proc.stderr is not None

    async def feed() -> None:  # while the outputs are read: a full pipe never blocks it
        if stdin is None or proc.stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin.encode())
            await proc.stdin.drain()
        proc.stdin.close()

    _fed, out, err = await asyncio.gather(feed(), read_bounded(proc.stdout, OUTPUT_LIMIT),
                                          read_bounded(proc.stderr, OUTPUT_LIMIT))
    await proc.wait()
    return out, err


class _LocalStream:
    def __init__(self, proc: asyncio.subprocess.Process):
        self._proc = proc

    def chunks(self) -> AsyncIterator[list[str]]:
        assert self._proc.stdout is not None
        return split_lines(self._proc.stdout)

    async def stop(self) -> None:
        """End the command (its own session: Ctrl+C never reaches it) and drain its pipe,
        so the subprocess transport closes while the loop still runs."""
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await within(self._proc.wait(), 2)
            if self._proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await within(self._proc.communicate(), 2)
