"""The router's test image: the real LiteLLM proxy on top of ``sparktest/base``.

``ghcr.io/berriai/litellm:main-stable`` cannot be pulled here, so a node is given an
image that runs the real proxy: the base test image, plus the standard library parts
and shared libraries it leaves out (ssl, hashlib, ...: LiteLLM needs them) and a
``litellm`` entrypoint, as the real image's entrypoint runs ``litellm ARGS``.

LiteLLM itself (``litellm[proxy]``, ~600 MB) is installed once with
``pip install --target`` into ``LITELLM_SITE`` (not into the venv: the proxy extra pins
``rich<14``, which the dashboard's Textual does not take) and is mounted read-only into
the containers at ``/opt/litellm-site`` by the OCI runtime wrapper (oci_runtime.py)
rather than copied into a layer per daemon. Nothing is fetched at test time.
"""

from __future__ import annotations

import io
import os
import platform
import sysconfig
import tarfile
from pathlib import Path

from . import build

# One folder per interpreter: the containers run the tests' own Python, and a --target
# install for another (3.11.7 vs 3.11.2) leaves out what its markers skip (redis wants
# async_timeout before 3.11.3).
LITELLM_SITE = Path(os.environ.get(
    "SPARKTUI_TEST_LITELLM",
    f"/var/tmp/sparktui-litellm/py{platform.python_version()}/site"))
IN_CONTAINER = "/opt/litellm-site"
IMAGE = "sparktest/litellm:latest"
REF = "ghcr.io/berriai/litellm:main-stable"
INSTALL = f"pip install --target {LITELLM_SITE} 'litellm[proxy]'"

ENTRYPOINT = f'''#!/usr/bin/python3
"""litellm ARGS, as the real image's entrypoint runs it. Like the test engine
(sparktest/node.py), a wildcard --host on the host network binds this node's address."""
import os
import sys

sys.path = [{IN_CONTAINER!r}] + [p for p in sys.path if not p.startswith("/opt/sparktest")]
args = sys.argv[1:]
if "--host" in args and os.environ.get("SPARKTEST_HOST_NETWORK", "1") == "1":
    at = args.index("--host") + 1
    if at < len(args) and args[at] in ("0.0.0.0", "::"):
        args[at] = os.environ.get("SPARKTUI_NODE_ADDR", args[at])
sys.argv = ["litellm", *args]
from litellm import run_server

run_server()
'''


def available() -> bool:
    return (LITELLM_SITE / "litellm" / "__init__.py").is_file()


def required() -> None:
    """Skipped without LiteLLM's install, a failure under CI (like the hosts)."""
    if not available():
        import pytest

        message = f"LiteLLM's proxy is not installed for the tests: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def mounts() -> list[list[str]]:
    """``[host, container]`` read-only binds the OCI wrapper adds to every container."""
    return [[str(LITELLM_SITE), IN_CONTAINER]] if available() else []


SKIP = {"site-packages", "__pycache__", "test", "tests", "idlelib", "tkinter", "turtledemo",
        "ensurepip", "_tkinter"}


def _extra_files() -> list[Path]:
    """What the base image leaves out of the standard library, and the system libraries
    its extensions and LiteLLM's link (LiteLLM's own are in the mounted folder)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in stdlib.rglob("*") if p.is_file() and not SKIP & set(p.parts)
             and not any(part.startswith("config-") for part in p.parts)]
    libs: set[Path] = set()
    for so in [*(p for p in files if p.suffix == ".so"), *LITELLM_SITE.rglob("*.so*")]:
        libs.update(lib for lib in build.shared_libraries(so)
                    if LITELLM_SITE not in Path(os.path.realpath(lib)).parents)
    base = set(build._host_files())
    return [p for p in files + sorted(libs) if p not in base]


def context() -> bytes:
    """The build context: a Dockerfile and the files it copies onto the base image."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as raw:
        t = build._Tar(raw)
        t.file("Dockerfile", (b"FROM sparktest/base:latest\nCOPY root/ /\n"
                              b'ENTRYPOINT ["/usr/local/bin/litellm"]\nCMD []\n'))
        for path in _extra_files():
            t.copy(path, "root/" + str(path).lstrip("/"))
        t.file("root/usr/local/bin/litellm", ENTRYPOINT.encode(), 0o755)
    return buf.getvalue()


_CONTEXT: list[bytes] = []


def install(node) -> None:
    """Give ``node``'s docker the router image, tagged as the real one's ref."""
    api = node.daemon.api
    if api.image_id(IMAGE) is None:
        if not _CONTEXT:
            _CONTEXT.append(context())
        api.call("POST", "/build", {"t": IMAGE, "version": "1", "rm": "1", "q": "1"},
                 body=_CONTEXT[0], content_type="application/x-tar", timeout=600)
    api.tag(IMAGE, REF)
