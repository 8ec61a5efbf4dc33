"""The test images, as an archive for ``docker load``.

No registry is reachable, so the image is made from this machine's own files: a
static busybox (sh, sleep, ...), the Python that runs the tests (interpreter, the
libraries it links, its standard library without tests and tools), the look-alike
programs in ``sparktest/`` and ``site/``, and the nvidia-smi of the test hosts. The
archive is cached by a hash of everything that goes in, so a test run builds it once.

It is loaded rather than imported so that every node gets the same image IDs, as nodes
that pulled the same tag do (``docker import`` stamps each copy with its own time).
Two images share the one layer: ``sparktest/base`` (no entrypoint) and ``sparktest/vllm``
(entrypoint ``vllm serve``, like vLLM's images).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import io
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDIN = HERE.parent / "standin"
SITE = "/opt/sparktest/site"
PYTHONPATH = f"{SITE}:/opt/sparktest"
PROGRAMS = ("vllm", "ray", "etcd", "nats-server", "mooncake_master", "dcgm-exporter",
            "node_exporter", "torchrun", "data-server", "store-server")
STDLIB_SKIP = {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip",
               "lib2to3", "distutils", "pydoc_data", "venv", "__phello__", "unittest"}
DYNLOAD_SKIP = re.compile(r"^(_tkinter|_sqlite3|_curses|_curses_panel|_dbm|_gdbm|nis|_ssl|_hashlib"
                          r"|_decimal|_codecs_\w+|_multibytecodec|readline|_lzma|_bz2|xxlimited"
                          r"\w*|_test\w*|_xxtestfuzz|_ctypes_test)\.")
BUSYBOX_CANDIDATES = ("/bin/busybox", "/usr/bin/busybox")


class ImageBuildError(RuntimeError):
    pass


def busybox() -> str:
    for path in BUSYBOX_CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    raise ImageBuildError("busybox not installed: apt-get install busybox-static")


def interpreter() -> Path:
    base = getattr(sys, "_base_executable", None) or sys.executable
    return Path(os.path.realpath(base))


def shared_libraries(binary: Path) -> list[Path]:
    """What the dynamic loader maps for ``binary`` (ldd's resolved paths)."""
    return list(_ldd(binary, os.stat(binary).st_mtime_ns))


@functools.cache
def _ldd(binary: Path, mtime_ns: int) -> tuple[Path, ...]:
    """Asked once per file and process: each image fingerprint, router context and
    supervisor image asks for dozens of files (3,000 ldd runs a suite before)."""
    got = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False)
    found = []
    for line in got.stdout.splitlines():
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            found.append(Path(m.group(1)))
    return tuple(found)


def _stdlib_files(stdlib: Path) -> list[Path]:
    files = []
    for root, dirs, names in os.walk(stdlib):
        rel = Path(root).relative_to(stdlib)
        if rel == Path("."):
            dirs[:] = [d for d in dirs if d not in STDLIB_SKIP and not d.startswith("config-")]
        for name in names:
            if name.endswith((".a", ".opt-1.pyc", ".opt-2.pyc", ".exe")):
                continue
            if rel == Path("lib-dynload") and DYNLOAD_SKIP.match(name):
                continue
            files.append(Path(root) / name)
    return files


def _host_files() -> list[Path]:
    python = interpreter()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [python, *_stdlib_files(stdlib)]
    libs: set[Path] = set(shared_libraries(python))
    for so in files:
        if so.suffix == ".so":
            libs.update(shared_libraries(so))
    return files + sorted(libs - set(files))


def _ours() -> list[Path]:
    return sorted(p for p in [*(HERE / "sparktest").glob("*.py"), *(HERE / "site").rglob("*.py"),
                              STANDIN / "nvidia-smi", Path(__file__).resolve()])


def fingerprint() -> str:
    h = hashlib.sha256(busybox().encode())
    for path in _host_files():
        st = path.stat()
        h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for path in _ours():
        h.update(str(path).encode() + path.read_bytes())
    return h.hexdigest()[:16]


class _Tar:
    def __init__(self, tar: tarfile.TarFile) -> None:
        self.tar = tar
        self.dirs: set[str] = set()

    def _parents(self, name: str) -> None:
        parts = Path(name).parts[:-1]
        for i in range(1, len(parts) + 1):
            self.dir("/".join(parts[:i]))

    def dir(self, name: str, mode: int = 0o755) -> None:
        name = name.strip("/")
        if not name or name in self.dirs:
            return
        self._parents(name)
        self.dirs.add(name)
        info = tarfile.TarInfo(name)
        info.type, info.mode = tarfile.DIRTYPE, mode
        self.tar.addfile(info)

    def file(self, name: str, data: bytes, mode: int = 0o644, mtime: float = 0) -> None:
        name = name.strip("/")
        self._parents(name)
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = len(data), mode, int(mtime)
        self.tar.addfile(info, io.BytesIO(data))

    def copy(self, src: Path, name: str | None = None) -> None:
        """``src`` with its mtime: the host's bytecode of the standard library records the
        source's, and a module whose mtime differs is compiled again at every import in
        every new container (a third of a second of CPU per engine start)."""
        real = Path(os.path.realpath(src))
        mode = 0o755 if os.access(real, os.X_OK) else 0o644
        self.file(name or str(src), real.read_bytes(), mode, real.stat().st_mtime)

    def module(self, src: Path, name: str) -> None:
        """Our module and its bytecode (unchecked: a changed source is a new image), so
        no container compiles it at start."""
        self.copy(src, name)
        with tempfile.TemporaryDirectory() as tmp:
            compiled = py_compile.compile(
                str(src), cfile=str(Path(tmp) / "m.pyc"), dfile="/" + name, doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            self.file(importlib.util.cache_from_source(name), Path(compiled).read_bytes())

    def link(self, name: str, target: str) -> None:
        name = name.strip("/")
        self._parents(name)
        info = tarfile.TarInfo(name)
        info.type, info.linkname = tarfile.SYMTYPE, target
        self.tar.addfile(info)


def _script(body: str) -> bytes:
    return f"#!/usr/bin/python3\n{body}".encode()


def write_rootfs(dest: Path) -> None:
    python = interpreter()
    with tarfile.open(dest, "w") as raw:
        t = _Tar(raw)
        for d in ("proc", "sys", "dev", "etc", "root", "run", "var/tmp"):
            t.dir(d)
        t.dir("tmp", 0o1777)
        t.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
        t.file("etc/group", b"root:x:0:\n")
        t.copy(Path(busybox()), "bin/busybox")
        applets = subprocess.run([busybox(), "--list"], capture_output=True, text=True,
                                 check=True).stdout.split()
        for applet in applets:
            if applet not in ("busybox", "python3"):
                t.link(f"bin/{applet}", "/bin/busybox")
        for path in _host_files():
            t.copy(path)
        for alias in ("usr/bin/python3", "usr/bin/python", "usr/local/bin/python3"):
            t.link(alias, str(python))
        for program in PROGRAMS:
            t.file(f"usr/local/bin/{program}", _script(
                "from sparktest.programs import main\nmain()\n"), 0o755)
        t.link("bin/node_exporter", "/usr/local/bin/node_exporter")
        for name, text in ENTRYPOINT_SCRIPTS.items():
            t.file(name, text.encode(), 0o755)
        smi = (STANDIN / "nvidia-smi").read_text().split("\n", 1)[1]
        t.file("usr/bin/nvidia-smi", _script(smi), 0o755)
        for src in (HERE / "sparktest").glob("*.py"):
            t.module(src, f"opt/sparktest/sparktest/{src.name}")
        for src in (HERE / "site").rglob("*.py"):
            t.module(src, f"{SITE}/{src.relative_to(HERE / 'site')}")


# ref -> (entrypoint, cmd): the images' own, where sparktui relies on them.
IMAGES: dict[str, tuple[list[str] | None, list[str] | None]] = {
    "sparktest/base:latest": (None, ["sh"]),  # like NVIDIA's: runs the command given
    "sparktest/vllm:latest": (["vllm", "serve"], None),  # vllm/vllm-openai
    "sparktest/node-exporter:latest": (["/bin/node_exporter"], None),
    "sparktest/dcgm-exporter:latest": (["/usr/local/dcgm/dcgm-exporter-entrypoint.sh"], None),
    "sparktest/nats:latest": (["docker-entrypoint.sh"],
                              ["nats-server", "--config", "/etc/nats/nats-server.conf"]),
}
CREATED = "2026-01-01T00:00:00Z"
ENTRYPOINT_SCRIPTS = {
    # nats:2.10-alpine's: flags alone run the server with them
    "usr/local/bin/docker-entrypoint.sh":
        '#!/bin/sh\ncase "$1" in -*) set -- nats-server "$@";; esac\nexec "$@"\n',
    "usr/local/dcgm/dcgm-exporter-entrypoint.sh": '#!/bin/sh\nexec dcgm-exporter "$@"\n',
}


def _config(layer_digest: str, entrypoint: list[str] | None, cmd: list[str] | None) -> bytes:
    config: dict = {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin", f"PYTHONPATH={PYTHONPATH}"],
                    "Cmd": cmd, "Entrypoint": entrypoint, "WorkingDir": "/"}
    return json.dumps({
        "architecture": "amd64", "os": "linux", "created": CREATED, "config": config,
        "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        "history": [{"created": CREATED, "created_by": "tests/hosts/testimage/build.py"}],
    }, sort_keys=True).encode()


def write_archive(dest: Path, rootfs: Path) -> None:
    layer = rootfs.read_bytes()
    digest = "sha256:" + hashlib.sha256(layer).hexdigest()
    with tarfile.open(dest, "w") as raw:
        t = _Tar(raw)
        t.file("layer/layer.tar", layer)
        manifest = []
        for ref, (entrypoint, cmd) in IMAGES.items():
            config = _config(digest, entrypoint, cmd)
            name = hashlib.sha256(config).hexdigest() + ".json"
            t.file(name, config)
            manifest.append({"Config": name, "RepoTags": [ref], "Layers": ["layer/layer.tar"]})
        t.file("manifest.json", json.dumps(manifest).encode())


def image_archive(cache_dir: Path = Path("/tmp")) -> Path:
    """The archive, built on first use (and whenever an input changed)."""
    target = cache_dir / f"sparktui-testimage-{fingerprint()}.tar"
    if not target.exists():
        rootfs = target.with_suffix(f".{os.getpid()}.rootfs")
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        try:
            write_rootfs(rootfs)
            write_archive(tmp, rootfs)
            os.replace(tmp, target)
        finally:
            rootfs.unlink(missing_ok=True)
        for old in cache_dir.glob("sparktui-testimage-*.tar"):
            if old != target:
                old.unlink(missing_ok=True)
    return target


if __name__ == "__main__":
    path = image_archive()
    print(path, f"{path.stat().st_size / 1e6:.1f} MB", shutil.which("docker") or "")
