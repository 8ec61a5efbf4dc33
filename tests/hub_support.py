"""A real Hub-compatible server on loopback for the fit before download: olah.

olah (https://github.com/vtuber-plan/olah, a maintained Hugging Face mirror) runs here
offline, with no upstream: ``offline = true`` and ``mirrors-path``, a folder of git
repositories (``models/ORG/NAME``) that it serves as the Hub's API does (the model info,
paths-info with LFS sizes, resolve), answering an unknown repo 401 ``RepoNotFound`` as
the Hub does. A weights file is committed as its LFS pointer (``Lfs``): olah lists its
size from the pointer, and no gigabytes are written. The real ``huggingface_hub`` client
of sparktui talks to it through ``HF_ENDPOINT``.

olah pins its own web stack (fastapi, pydantic-settings, GitPython, ...), so it lives in
an environment of its own, like vLLM's: .ci/run makes it in ``/var/tmp/sparktui-olah``,
where the tests look by default (``$SPARKTUI_TEST_OLAH`` names another ``olah-cli``).
Without it the tests are skipped, and fail under CI.

What olah cannot play (it has no accounts, so no gated repo and no 401 for a token; it
reads sizes from git, so never a negative one) is tests/hub_standin.py's.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from polling import eventually

OLAH_ENV = "SPARKTUI_TEST_OLAH"
CONFIGS = Path(__file__).resolve().parent / "data" / "model-configs"


def olah_cli() -> str:
    """olah's program; skipped without it, a failure under CI."""
    for tool in (os.environ.get(OLAH_ENV), "/var/tmp/sparktui-olah/bin/olah-cli",
                 shutil.which("olah-cli")):
        if tool and Path(tool).is_file():
            return tool
    why = ("olah not installed (pip install olah==0.5.4 into /var/tmp/sparktui-olah, a venv "
           f"of its own; or set ${OLAH_ENV})")
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def free_port() -> int:
    """A loopback port nothing listens on (bound and closed: a connection is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Lfs:
    """A file committed as its git-lfs pointer: the Hub lists ``size`` for it."""

    size: int
    oid: str = "0" * 64

    def pointer(self) -> bytes:
        return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.oid}\n"
                f"size {self.size}\n").encode()


def git_repo(folder: Path, files: Mapping[str, bytes | str | Lfs],
             tags: tuple[str, ...] = ()) -> str:
    """A git repository of ``files`` (one commit on main, ``tags`` on it); its commit."""
    folder.mkdir(parents=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.pointer() if isinstance(content, Lfs) else content
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              cwd=folder, check=True, capture_output=True, text=True,
                              timeout=60).stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "model")
    for tag in tags:
        git("tag", tag)
    return git("rev-parse", "HEAD")


def model_files(config: str, total_size: int | None = None, shards: int = 2,
                shard_size: int = 5_000_000_000) -> dict[str, bytes | str | Lfs]:
    """A model repo of tests/data/model-configs/``config``.json: with an index of
    ``total_size`` when given, and ``shards`` LFS weights files of ``shard_size``."""
    files: dict[str, bytes | str | Lfs] = {"config.json": (CONFIGS / f"{config}.json").read_text()}
    names = [f"model-{i:05d}-of-{shards:05d}.safetensors" for i in range(1, shards + 1)]
    for i, name in enumerate(names):
        files[name] = Lfs(shard_size, f"{i + 1:064x}")
    if total_size is not None:
        files["model.safetensors.index.json"] = json.dumps(
            {"metadata": {"total_size": total_size}, "weight_map": {"lm_head.weight": names[-1]}},
            indent=2)
    return files


class Olah:
    """One olah serving the git repositories under ``mirror`` (``add`` puts one there)."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.mirror = folder / "mirror"
        self.url = f"http://127.0.0.1:{self.port}"
        self.mirror.mkdir(parents=True)
        (folder / "olah.toml").write_text(
            f'[basic]\nhost = "127.0.0.1"\nport = {self.port}\n'
            f'repos-path = "{folder / "repos"}"\nmirrors-path = ["{self.mirror}"]\n'
            '[accessibility]\noffline = true\n')
        self.log = (folder / "olah.log").open("wb")
        self.proc = subprocess.Popen([olah_cli(), "-c", str(folder / "olah.toml")],
                                     cwd=folder, stdout=self.log, stderr=subprocess.STDOUT)

    def add(self, repo: str, files: Mapping[str, bytes | str | Lfs],
            tags: tuple[str, ...] = ()) -> str:
        return git_repo(self.mirror / "models" / repo, files, tags)

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"olah exited: {(self.folder / 'olah.log').read_text()}")
        try:
            return httpx.get(f"{self.url}/api/models/no/such", timeout=5).status_code > 0
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def olah(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Olah]:
    """One olah per test process; each test adds the repos it needs under its own name."""
    olah_cli()
    server = Olah(tmp_path_factory.mktemp("olah"))
    try:
        eventually(server.ready, what="olah answers",
                   explain=lambda: (server.folder / "olah.log").read_text()[-2000:])
        yield server
    finally:
        server.stop()


def use_hub(monkeypatch: pytest.MonkeyPatch, url: str, token: str | None = None) -> None:
    """This test's Hub at ``url`` (tests/home_support.py keeps every other test offline)."""
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    if token is None:
        monkeypatch.delenv("HF_TOKEN", raising=False)
    else:
        monkeypatch.setenv("HF_TOKEN", token)
