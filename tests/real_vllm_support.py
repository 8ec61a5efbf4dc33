"""One real vLLM per test run (issue 34): the ``real_vllm`` session fixture.

vLLM 0.32's CPU build (tests/hosts/testimage/real_vllm.py) serves the tiny random Llama
in a container on a one-node test cluster of its own, behind the real SMG router when
SMG is installed. It is started by ``sparktui serve`` (the readiness gate under test) the
first time a test asks for it, and shared by every test that needs the real engine: they
carry ``xdist_group("real-vllm")`` so one worker runs them all, and tests/conftest.py
hands them out first, so the engine starts (a minute or more, most of it imports) while
the other workers run the rest. The test that stops it runs last in its module.

Without vLLM's CPU build the tests are skipped; under ``CI=true`` they fail.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hosts.pool import HostPool
from hosts.testimage import real_vllm as image
from hosts.testimage import router as router_image
from site_support import Site, _prepend_top_level, _site_factory

from sparktui.cli import main

RECIPE = "tiny"
PORT = 30341
ROUTER_PORT = 30342
ROUTER_KEY = "router-key-of-the-real-vllm-tests-34"
GROUP = pytest.mark.xdist_group("real-vllm")
# Kept small for a 2-core machine: a 256-token context; eager mode (torch.compile needs
# a C++ compiler the image has not; vLLM's own images have one); float32, as vLLM's
# bfloat16 CPU kernels use AMX, which this machine's CPU lists and its kernel does not
# grant: the worker dies of SIGILL at the first forward pass.
ARGS = ["--max-model-len", "256", "--enforce-eager", "--dtype", "float32"]


def recipe(port: int = PORT, args: list[str] | None = None) -> str:
    """A one-node vLLM recipe serving the tiny model from the node's HF cache."""
    listed = ", ".join(f'"{a}"' for a in (ARGS if args is None else args))
    return (f'engine = "vllm"\ndocker_image = "{image.REF}"\nmodel = "{image.MODEL}"\n'
            f"port = {port}\nrequired_nodes = 1\ntensor_parallel_size = 1\n"
            f"args = [{listed}]\n")


def real_site(site: Site) -> Site:
    """``site``'s node given the real vLLM's image and model, and its HF cache mounted
    (the config's home_dir: the node's home on this shared file system)."""
    image.required()
    node = site.hosts.node("node1")
    _prepend_top_level(site.config_path, f'home_dir = "{node.home}"\n')
    image.install(node)
    return site


@dataclass
class RealEngine:
    site: Site
    serve_rc: int
    serve_output: str
    start_to_ready: float
    """Seconds from ``sparktui serve`` to its return (the engine answering)."""
    router: bool

    @property
    def node(self):
        return self.site.hosts.node("node1")

    @property
    def url(self) -> str:
        return f"http://{self.node.addr}:{PORT}"

    @property
    def router_url(self) -> str:
        return f"http://{self.node.addr}:{ROUTER_PORT}"

    def served(self) -> RealEngine:
        """The engine, once ``serve`` said it is ready; the test fails with serve's words
        otherwise."""
        assert self.serve_rc == 0, self.serve_output
        return self


@pytest.fixture(scope="session")
def real_vllm(host_pool: HostPool, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[RealEngine]:
    image.required()
    cluster = host_pool.new(1)
    try:
        router = router_image.available()
        extra = (f"[clusters.router]\nport = {ROUTER_PORT}\nready_timeout_seconds = 900\n"
                 f'api_key = "{ROUTER_KEY}"\n') if router else ""
        # Readiness waits as long as a loaded machine needs: never a timing assertion.
        make = _site_factory(lambda n: cluster, tmp_path_factory.mktemp("real-vllm"))
        s = real_site(make(1, extra_toml=extra, top="ready_timeout_seconds = 900"))
        if router:
            router_image.install(s.hosts.node("node1"))
        s.recipe(RECIPE, recipe())
        words = io.StringIO()
        started = time.monotonic()
        with contextlib.redirect_stdout(words), contextlib.redirect_stderr(words):
            rc = main(s.cli("serve", RECIPE))
        took = time.monotonic() - started
        if rc != 0:
            logs = s.hosts.node("node1").docker("logs", "--tail", "80", "sparktui-" + RECIPE)
            words.write(f"\n-- engine log --\n{logs.stdout}{logs.stderr}")
        yield RealEngine(s, rc, words.getvalue(), took, router)
    finally:
        cluster.stop()
