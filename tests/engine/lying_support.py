"""The lying-node property tests' bench: a 2-node site whose node2 lies (tests/hosts/
lying.py) and whose node1 is honest and records what it is asked; what the liar may say
(hypothesis strategies); and ``python -m sparktui`` run with its peak memory.

Node1 runs one sparktui engine of its own (``honest``, served from its plan) and keeps a
container of another cluster (``sparktui-victim``), which no stop of this cluster may
touch. What node1 may be asked is what the same command asks it when node2 says
nothing (``Lab.baseline``): anything more came from node2's words.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hostile_support import PEAK_AT_EXIT
from hosts.lying import Answer, HonestNode, HttpLie, LyingNode, lying_http
from site_support import Recorder, _site_factory, toy_recipe

from sparktui.engine.cluster import ClusterEngine

EXAMPLES = int(os.environ.get("SPARKTUI_LYING_EXAMPLES", "5"))
"""Generated examples per property (after the issue's own attacks): a few, so that the
module takes about a minute; more for a deeper look (``SPARKTUI_LYING_EXAMPLES=100``)."""
RSS_LIMIT_KB = 200 * 1024
CLI_BOUND = 90.0
"""Seconds after which a CLI run is a hang (a bound on a failure, never a speed goal)."""
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach a terminal raw: C0 but tab and newline (ESC, BEL, CR among
them), DEL, C1, line separators and bidi overrides (sparktui/visible.py's set)."""
HONEST_PORT = 30071
LIAR_PORT = 30072
VICTIM = "sparktui-victim"
PLANTED_MARK = Path(f"/tmp/sparktui-lying-planted-{os.getpid()}")
"""What the command a liar's after_stop label asks for leaves where it runs (it may run
on the liar, which runs nothing: anywhere else is a failure)."""
TERM_EXITS = ("import signal, sys; signal.signal(signal.SIGTERM, lambda *a: sys.exit(0)); "
              "signal.pause()")
HONEST_RECIPE = toy_recipe(nodes=1, port=HONEST_PORT, env='STANDIN_READY_AFTER = "0"')
TOP = {"health_timeout_seconds": "4", "command_timeout_seconds": "15",
       "connect_timeout_seconds": "10", "telemetry_interval_seconds": "0.5"}


@dataclass
class Ran:
    """A finished CLI run: its exit code, what it printed, its peak RSS (KiB)."""

    args: tuple[str, ...]
    code: int
    out: bytes
    err: bytes
    peak_kb: int

    def problems(self) -> list[str]:
        """What is wrong with the run as a terminal would see it (empty: nothing)."""
        found = []
        if self.code not in (0, 1):
            found.append("still running: killed" if self.code == 99 else f"exit code {self.code}")
        if b"Traceback" in self.err:
            found.append("a traceback: " + self.err.decode(errors="replace")[-1500:])
        if self.peak_kb > RSS_LIMIT_KB:
            found.append(f"peak RSS {self.peak_kb // 1024} MB")
        for name, data in (("stdout", self.out), ("stderr", self.err)):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                found.append(f"{name} is not UTF-8: {data[exc.start:exc.start + 20]!r}")
                text = data.decode("utf-8", "replace")
            raw = RAW_CONTROL.search(text)
            if raw:
                at = raw.start()
                found.append(f"{name} holds {raw.group()!r} raw: {text[max(0, at - 60):at + 40]!r}")
        return found


def run_cli(*args: str, bound: float = CLI_BOUND) -> Ran:
    """``python -m sparktui ARGS`` and its peak RSS. A run still going after ``bound``
    seconds is killed and reported as a hang."""
    with tempfile.NamedTemporaryFile("r", prefix="sparktui-peak-") as peak:
        return _run(args, bound, peak.name)


def _run(args: tuple[str, ...], bound: float, peak_file: str) -> Ran:
    proc = subprocess.Popen([sys.executable, "-c", PEAK_AT_EXIT, *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            env={**os.environ, "COLUMNS": "120", "NO_COLOR": "",
                                 "SPARKTUI_TEST_PEAK": peak_file})
    outs: dict[str, bytes] = {}

    def drain(name: str, pipe: Any) -> None:
        kept = bytearray()
        while chunk := pipe.read(1 << 16):
            if len(kept) < 32 << 20:  # what the test keeps of an answer without end
                kept += chunk
        outs[name] = bytes(kept)

    readers = [threading.Thread(target=drain, args=(n, p), daemon=True)
               for n, p in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    try:
        code = proc.wait(bound)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = 99  # a hang, killed
    for reader in readers:
        reader.join(30)
    told = Path(peak_file).read_text().strip()
    return Ran(args, code, outs.get("out", b""), outs.get("err", b""),
               int(told) if told.isdigit() else 0)


@dataclass
class Scene:
    """Everything node2 says in one example: its SSH answers, its docker API's (when it
    names a socket), and its engine port's."""

    answers: dict[str, Answer]
    api: dict[str, HttpLie] = field(default_factory=dict)
    http: dict[str, HttpLie] = field(default_factory=dict)
    via_api: bool = False
    """The node names its docker socket (``api`` answers), or none (the CLI is asked)."""


class Lab:
    """The 2-node site: node1 honest (recorded), node2 a liar with an engine port."""

    def __init__(self, cluster: Any, tmp_path: Path) -> None:
        self.cluster = cluster
        self.honest = HonestNode(cluster.node("node1"))
        self.liar = LyingNode(cluster.node("node2"))
        self.http = lying_http(cluster.node("node2"), LIAR_PORT)
        top = "\n".join(f"{k} = {v}" for k, v in TOP.items())
        self.site = _site_factory(lambda n: cluster, tmp_path)(2, top=top)
        self.site.recipe("honest", HONEST_RECIPE)
        self.node1 = cluster.node("node1")
        self._baselines: dict[tuple[str, ...], set[str]] = {}
        self._honest_labels: dict[str, str] | None = None

    def cli(self, *args: str) -> list[str]:
        return self.site.cli(*args)

    def tell(self, scene: Scene) -> None:
        endpoint = {"endpoint": Answer(f"{self.liar.api_endpoint}\n".encode())}
        self.liar.tell({**scene.answers, **(endpoint if scene.via_api else {})})
        PLANTED_MARK.unlink(missing_ok=True)
        self.liar.api.answers = dict(scene.api)
        self.http.answers = dict(scene.http)
        self.honest.forget()

    def serve_honest(self) -> None:
        """node1's engine, served by sparktui itself the first time (its labels, its run
        id); afterwards a container with those labels again, quick to start and to stop
        (what a stop sees of it is the same)."""
        name = self.honest_container
        state = self.node1.containers().get(name, {}).get("State", {})
        if state.get("Status") == "running":
            return
        if self._honest_labels is None:
            self._serve()
            labels = self.node1.containers()[name]["Config"]["Labels"]
            self._honest_labels = {k: v for k, v in labels.items() if k.startswith("sparktui.")}
            return
        self.node1.docker("rm", "-f", name)
        argv = ["run", "-d", "--name", name]
        for key, value in self._honest_labels.items():
            argv += ["--label", f"{key}={value}"]
        done = self.node1.docker(*argv, "vllm:test", "python3", "-c", TERM_EXITS)
        assert done.returncode == 0, done.stderr

    def _serve(self) -> None:
        plan = self.site.plan("honest", "test")
        assert [m.name for m in plan.nodes] == ["node1"], plan.nodes
        self.tell(Scene({}))  # the serve looks at every node: node2 says nothing

        async def serve() -> None:
            engine = self.engine()
            try:
                result = await engine.serve(plan, Recorder())
            finally:
                await engine.close()
            assert result.ok, result

        asyncio.run(serve())

    @property
    def honest_container(self) -> str:
        return self.site.plan("honest", "test").nodes[0].container

    def plant_victim(self) -> None:
        """A container of another cluster on node1, named as a liar may name it."""
        if VICTIM in self.node1.containers():
            return
        done = self.node1.docker(
            "run", "-d", "--name", VICTIM, "--label", "sparktui.recipe=honest",
            "--label", "sparktui.cluster=other", "--label", "sparktui.node=node1",
            "--label", "sparktui.role=head", "vllm:test", "python3", "-c", TERM_EXITS)
        assert done.returncode == 0, done.stderr

    def baseline(self, *args: str) -> set[str]:
        """What ``python -m sparktui ARGS`` asks node1 when node2 says nothing at all."""
        def clean_run() -> None:
            ran = run_cli(*self.cli(*args))
            assert not ran.problems(), ran.problems()

        return self.baseline_of(args, clean_run)

    def baseline_of(self, key: tuple[str, ...], run: Callable[[], object]) -> set[str]:
        """What ``run()`` asks node1 when node2 says nothing at all (kept by ``key``)."""
        if key not in self._baselines:
            self.tell(Scene({}))
            run()
            self._baselines[key] = set(self.honest.asked())
        return self._baselines[key]

    def foreign_commands(self, allowed: set[str]) -> list[str]:
        """What node1 was asked since ``tell`` beyond ``allowed`` (a ``baseline``)."""
        return [c for c in self.honest.asked() if c not in allowed]

    def close(self) -> None:
        self.http.close()
        self.liar.close()

    def engine(self) -> ClusterEngine:
        return self.site.engine()

