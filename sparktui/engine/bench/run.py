"""Drive the benchmark tool (aiperf) level by level, on the operator's machine, and
read what it measured. Ctrl+C (a cancel) stops the load: the tool is sent SIGINT, so it
writes what it measured so far (``was_cancelled``), and the levels done are kept."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from sparktui import untrusted_json
from sparktui.config.bench_result import LevelResult
from sparktui.engine.bench.kept import BenchFailed, BenchProgress, ProgressSink
from sparktui.engine.bench.target import BenchTarget
from sparktui.engine.deadline import within
from sparktui.plan.bench.aiperf import (
    EXPORT,
    RECORDS,
    BenchSettings,
    level_result,
    profile_argv,
    tool_version,
)
from sparktui.visible import visible

STOP_GRACE_SECONDS = 30.0
"""How long the tool has to write its partial export after SIGINT before it is killed
(its process group: it runs several processes)."""
POLL_SECONDS = 0.5


async def version_of(tool: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        tool, "--version", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await within(proc.communicate(), 60)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return "unknown"
    return tool_version(out.decode("utf-8", "replace"))


def _records(artifacts: Path) -> int:
    try:
        with open(artifacts / RECORDS, "rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 16), b""))
    except OSError:
        return 0


def read_level(artifacts: Path, concurrency: int) -> LevelResult | None:
    """The level's export read; None when there is none. A figure whose unit is not
    the one its name implies is a failure, never a number (BenchFailed)."""
    try:
        export = untrusted_json.loads((artifacts / EXPORT).read_text())
    except (OSError, ValueError):
        return None
    try:
        return level_result(export, concurrency)
    except ValueError as exc:
        raise BenchFailed(str(exc)) from None


def _tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    # the tool's log is shown on the operator's terminal: no escape sequence of its own
    return visible("\n".join(text.strip().splitlines()[-lines:]), lines=True)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGINT, the tool's own way to stop and export; its process group killed if it
    has not ended within the grace period (a SIGINT while it configures is ignored)."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGINT)
    try:
        await within(proc.wait(), STOP_GRACE_SECONDS)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()


OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def tool_env(settings: BenchSettings, environ: Mapping[str, str]) -> dict[str, str]:
    """The tool's environment: ours, less the Hugging Face offline switches when the
    tokenizer is a local folder. aiperf 0.13 reads a folder only when it may look at the
    Hub: with ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set, every level fails at
    once ("HFValidationError: Repo id must be in the form ..."), which is exactly how an
    operator without a way out has their machine set. Without them it reads the folder
    and fetches nothing."""
    env = dict(environ)
    tokenizer = settings.tokenizer
    if tokenizer is not None and Path(tokenizer).expanduser().is_dir():
        for name in OFFLINE_VARIABLES:
            env.pop(name, None)
    return env


async def _run_level(argv: list[str], artifacts: Path, say: Callable[[int, str], None],
                     tool_environ: dict[str, str]) -> int:
    artifacts.mkdir(parents=True, exist_ok=True)
    # aiperf's dataset files and its temp folders (its ZMQ sockets) go under the run's
    # folder, which is removed after: aiperf leaves them in the system's temp folder
    # otherwise, a few per level, more when it is interrupted. A short path: a socket's
    # path must stay under 108 bytes.
    scratch = artifacts.parent / "t"
    scratch.mkdir(exist_ok=True)
    env = {**tool_environ, "AIPERF_DATASET_MMAP_BASE_PATH": str(artifacts.parent),
           "TMPDIR": str(scratch)}
    # A process group of its own (a terminal's Ctrl+C reaches sparktui, which stops the
    # tool its own way; the group is killed if it does not end), in sparktui's session:
    # a session of its own is a scheduling autogroup of its own on Linux, and with the
    # engine on the same machine (a local cluster) the tool then took the engine's CPU
    # share and measured 0.7-0.8x of what aiperf run by hand measures.
    with open(artifacts / "tool.log", "wb") as log:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=log, env=env,
            stderr=asyncio.subprocess.STDOUT, process_group=0)
    try:
        while True:
            try:
                return await within(asyncio.shield(proc.wait()), POLL_SECONDS)
            except TimeoutError:
                say(_records(artifacts), "running")
    except asyncio.CancelledError:
        say(_records(artifacts), "stopping")
        await _stop(proc)
        raise
    finally:
        if proc.returncode is None:  # an error of ours: never leave the load running
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


async def run_levels(tool: str, settings: BenchSettings, target: BenchTarget,
                     progress: ProgressSink) -> tuple[list[LevelResult], bool, list[str]]:
    """(the levels measured, interrupted, the first level's argv). A level the tool
    gives no result for raises BenchFailed with the tool's last lines."""
    results: list[LevelResult] = []
    first_argv: list[str] = []
    environ = tool_env(settings, os.environ)
    work = Path(tempfile.mkdtemp(prefix="sparktui-bench-"))
    # the router's key: aiperf 0.13 takes it on its argv only; the record's argv has none
    keyed = ["--api-key", target.api_key.get_secret_value()] if target.api_key else []
    try:
        for index, concurrency in enumerate(settings.concurrency, 1):
            artifacts = work / f"c{concurrency}"
            argv = profile_argv(tool, settings, url=target.url, model=target.model,
                                concurrency=concurrency, artifact_dir=str(artifacts))
            first_argv = first_argv or argv
            total = settings.requests_at(concurrency)

            def say(done: int, state: str, c: int = concurrency, i: int = index,
                    n: int = total) -> None:
                progress(BenchProgress(c, i, len(settings.concurrency), min(done, n), n,
                                       state))
            say(0, "started")
            try:
                code = await _run_level(argv + keyed, artifacts, say, environ)
            except asyncio.CancelledError:
                partial = read_level(artifacts, concurrency)
                if partial is not None:
                    results.append(partial.model_copy(update={"partial": True}))
                return results, True, first_argv
            result = read_level(artifacts, concurrency)
            if result is None:
                raise BenchFailed(f"exit {code}: " + _tail(artifacts / "tool.log"))
            results.append(result)
            say(result.requests + result.errors, "done")
        return results, False, first_argv
    finally:
        shutil.rmtree(work, ignore_errors=True)
