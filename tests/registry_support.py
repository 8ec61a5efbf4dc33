"""A real image registry on loopback: Debian's ``docker-registry`` (the CNCF
distribution server, ``registry:2``'s program), for the pinned images' tests.

One per test session (each xdist worker its own), on 127.0.0.1 and a free port, with its
own storage folder and config file (no auth, no TLS). The test nodes' dockerds push to it
and pull from it: dockerd treats a registry in 127.0.0.0/8 as insecure-allowed by
default, and Go's proxy rules never send a loopback address to the dead proxy the test
daemons are given (tests/hosts/dockerd.py). Nothing leaves loopback.

Without the program the tests are skipped, and fail under CI (``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from hub_support import free_port
from polling import eventually

PROGRAM = "/usr/bin/docker-registry"

CONFIG = """version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: {root}
  delete:
    enabled: true
http:
  addr: {addr}
"""


def registry_program() -> str:
    """The registry's program; skipped without it, a failure under CI."""
    for tool in (PROGRAM, shutil.which("docker-registry")):
        if tool and Path(tool).is_file():
            return tool
    why = "docker-registry not installed (apt-get install docker-registry)"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


@dataclass
class Registry:
    addr: str  # host:port, as an image reference starts
    proc: subprocess.Popen

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"docker-registry exited {self.proc.returncode}")
        try:
            return httpx.get(f"http://{self.addr}/v2/", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    program = registry_program()
    folder = tmp_path_factory.mktemp("registry")
    addr = f"127.0.0.1:{free_port()}"
    config = folder / "config.yml"
    config.write_text(CONFIG.format(root=folder / "storage", addr=addr))
    log = (folder / "registry.log").open("ab")
    proc = subprocess.Popen([program, "serve", str(config)], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log, env={"PATH": os.environ.get("PATH", "")})
    found = Registry(addr, proc)
    try:
        eventually(found.ready, what="docker-registry answers /v2/")
        yield found
    finally:
        found.stop()
        log.close()
