"""Helpers for the supervision tests: a supervisor in its own process, the group's
containers as the nodes' dockerds see them, and supervision as the head keeps it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from polling import eventually

from sparktui.engine.supervise.record import (
    Failure,
    Lease,
    Reason,
    Record,
    RestartEvent,
    SupervisionStatus,
)

REPO = Path(__file__).resolve().parents[3]

# Small intervals and limits; every wait in the tests is a bounded poll.
TOP = "\n".join([
    "supervise_interval_seconds = 1", "supervise_failure_checks = 2",
    "supervise_backoff_seconds = 1", "supervise_backoff_max_seconds = 2",
    "supervise_max_restarts = 2", "supervise_window_seconds = 600",
    "supervise_lease_seconds = 8",
])


LOOK_OVER_SSH = 0.5
"""Seconds between looks of a wait whose every look opens SSH connections to the
nodes (the supervision record, the group's containers)."""

SPARK_TOTAL = 128e9
SPARK_AVAILABLE = 120e9
"""A DGX Spark's memory, idle: before a restart the supervisor waits for every node's
MemAvailable to reach what the recipe claims (vLLM's default: 90% of MemTotal)."""


def sparks(site):
    """Every node of ``site`` with a Spark's memory of its own (``set_memory``, a
    stand-in): the simulated nodes share this machine's, of which two engines' claims
    can never both be available."""
    for node in site.hosts.nodes:
        node.set_memory(total=SPARK_TOTAL, available=SPARK_AVAILABLE)
    return site


@pytest.fixture
def sh(tmp_path):
    """Supervision's shell lines run by a real sh in a home of their own (``.home``: its
    supervision folder)."""
    def run(command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}
        return subprocess.run(["sh", "-c", command], input=stdin, env=env, text=True,
                              capture_output=True, timeout=30, check=False)
    run.home = tmp_path / ".local/state/sparktui/supervise"  # type: ignore[attr-defined]
    return run


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPARKTUI_", "LC_", "LANG"))}
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), out.get("PYTHONPATH")]))
    out["LANGUAGE"] = "en"
    return out


class SupervisorProcess:
    """``sparktui supervise ...`` in a process of its own, its output in a file."""

    def __init__(self, site, *args: str, lang: str = "en") -> None:
        self.log = site.root / f"supervise-{len(list(site.root.glob('supervise-*')))}.log"
        self._out = open(self.log, "w")  # noqa: SIM115 (closed in wait/kill)
        self.proc = subprocess.Popen([sys.executable, "-m", "sparktui", "--lang", lang,
                                      *site.cli("supervise", *args)], env=env(),
                                     stdout=self._out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def output(self) -> str:
        return self.log.read_text()

    def saw(self, text: str) -> bool:
        return text in self.output()

    def wait(self, seconds: float = 120) -> int:
        try:
            return self.proc.wait(seconds)
        finally:
            self._out.close()

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)
        self._out.close()

    def __enter__(self) -> SupervisorProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def containers(site, node: str, recipe: str = "toy") -> dict[str, tuple[str, str]]:
    """name -> (container ID, state) of the recipe's containers on ``node``."""
    got = site.hosts.node(node).docker(
        "ps", "-a", "--filter", f"label=sparktui.recipe={recipe}",
        "--format", "{{.Names}} {{.ID}} {{.State}}")
    rows = [line.split() for line in got.stdout.splitlines() if line.strip()]
    return {r[0]: (r[1], r[2]) for r in rows if len(r) == 3}


def group(site, nodes=("node1", "node2"), recipe: str = "toy") -> dict[str, tuple[str, str]]:
    """node -> (ID, state) of its engine container, for every node that has one."""
    found = {}
    for node in nodes:
        rows = containers(site, node, recipe)
        if f"sparktui-{recipe}" in rows:
            found[node] = rows[f"sparktui-{recipe}"]
    return found


def running(site, nodes=("node1", "node2")) -> dict[str, tuple[str, str]] | None:
    now = group(site, nodes)
    return now if len(now) == len(nodes) and all(s == "running" for _, s in now.values()) \
        else None


def all_new(site, before: dict[str, tuple[str, str]]):
    """Every node runs a container other than the one in ``before``."""
    now = running(site, tuple(before))
    return now if now and all(now[n][0] != before[n][0] for n in before) else None


def supervision(site) -> SupervisionStatus:
    async def go():
        engine = site.engine()
        try:
            return await engine.supervision("test")
        finally:
            await engine.close()
    return asyncio.run(go())


def wait_supervised(site, proc: SupervisorProcess | None = None, seconds: float = 120,
                    nodes=("node1", "node2")):
    def ready():
        if proc is not None and proc.proc.poll() is not None:
            raise AssertionError(f"the supervisor ended: {proc.output()}")
        status = supervision(site)
        record, lease = status.record, status.lease
        healthy = (record is not None and lease is not None and record.holder == lease.holder
                   and record.healthy_since is not None)
        return (status if status.state == "supervised" and healthy and running(site, nodes)
                else None)
    return eventually(ready, seconds, "the group supervised and running",
                      explain=proc.output if proc is not None else None, every=LOOK_OVER_SSH)


def gave_up(cluster: str = "test", recipe: str = "toy", ago: float = 60.0) -> Record:
    """The record a supervisor leaves on the head when it gives up after two restarts."""
    at = time.time() - ago
    return Record(cluster, recipe, "ops@laptop pid 7", "foreground", "gave_up", 1, 600, 2,
                  at - 300, at, (RestartEvent(at - 100, Failure("not_running", "node2",
                                                                "exited (1)"), True),),
                  Reason("too_many_restarts", {"restarts": 2, "window": 600}))


def plant(site, record: Record | None = None, lease: Lease | None = None,
          node: str = "node1", home: Path | None = None) -> None:
    """Supervision's files on a node's disk as a supervisor leaves them (``home``: a
    home of this machine instead, a local node's)."""
    folder = (home or site.hosts.node(node).home) / ".local/state/sparktui/supervise"
    folder.mkdir(parents=True, exist_ok=True)
    if record is not None:
        (folder / "state.json").write_text(record.text())
    if lease is not None:
        (folder / "lease").write_text(lease.text())


def docker_runs(site, node: str) -> int:
    return sum(1 for a in site.hosts.recorded_docker(node) if a[:2] == ["docker", "run"])


# -- the on-node supervisor's image ------------------------------------------------------
SUPERVISOR_IMAGE = "sparktui-supervisor:test"
DEPS = ("asyncssh", "cryptography", "_cffi_backend", "cffi", "pydantic", "pydantic_core",
        "annotated_types", "typing_inspection",
        "typing_extensions", "tomlkit", "prometheus_client", "babel")
DYNLOAD = ("_ssl", "_hashlib", "_decimal", "_lzma", "_bz2")
"""What the test image's Python leaves out and sparktui's dependencies import."""
BABEL_LOCALES = ("root", "en", "ru", "es", "it", "fr", "de")


def _module_files(name: str) -> list[tuple[str, Path]]:
    """(path under site-packages, file) of an installed module or package."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, name
    origin = Path(spec.origin)
    if origin.name != "__init__.py":
        return [(origin.name, origin)]
    files = []
    for path in origin.parent.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if name == "babel" and path.parent.name == "locale-data" and not any(
                path.stem == loc or path.stem.startswith(loc + "_") for loc in BABEL_LOCALES):
            continue
        files.append((str(path.relative_to(origin.parent.parent)), path))
    return files


def supervisor_context() -> bytes:
    """A build context: the test image plus sparktui, its dependencies and the parts of
    this Python the test image leaves out: what a real image has by ``pip install``."""
    import io
    import sysconfig
    import tarfile

    from hosts.testimage.build import shared_libraries

    dockerfile = ("FROM sparktest/base:latest\nCOPY root/ /\n"
                  "ENV PYTHONPATH=/opt/sparktui:/opt/sparktui-deps\n"
                  'ENTRYPOINT ["python3", "-m", "sparktui"]\nCMD []\n')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        def add(name: str, path: Path) -> None:
            tar.add(os.path.realpath(path), arcname=name, recursive=False)

        info = tarfile.TarInfo("Dockerfile")
        info.size = len(dockerfile)
        tar.addfile(info, io.BytesIO(dockerfile.encode()))
        for top in ("sparktui", "locales", "host-scripts"):
            for path in (REPO / top).rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    add(f"root/opt/sparktui/{path.relative_to(REPO)}", path)
        libs: set[Path] = set()
        for name in DEPS:
            for rel, path in _module_files(name):
                add(f"root/opt/sparktui-deps/{rel}", path)
                if ".so" in path.suffixes:
                    libs.update(shared_libraries(path))
        dynload = Path(sysconfig.get_paths()["stdlib"]) / "lib-dynload"
        for module in DYNLOAD:
            for so in dynload.glob(f"{module}.*.so"):
                add(f"root{so}", so)
                libs.update(shared_libraries(so))
        for lib in sorted(libs):
            add(f"root{lib}", lib)
    return buf.getvalue()


def build_supervisor_image(node) -> str:
    node.daemon.api.call("POST", "/build", {"t": SUPERVISOR_IMAGE, "version": "1", "rm": "1",
                                            "q": "1"},
                         body=supervisor_context(), content_type="application/x-tar",
                         timeout=300)
    return SUPERVISOR_IMAGE
