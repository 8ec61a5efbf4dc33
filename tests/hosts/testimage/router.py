"""The router's test image: the real SMG router on top of ``sparktest/base``.

``lightseekorg/smg`` cannot be pulled here, so a node is given an image that runs the
real router: the base test image, plus the system libraries SMG's Rust extension links
and the standard library parts the base image leaves out, with the entrypoint the real
image has (``python3 -m smg.launch_router ARGS``).

SMG itself (the ``smg`` wheel: the Rust router as a Python extension, ~130 MB with its
few dependencies) is installed once with ``pip install --target`` into ``SMG_SITE`` (not
into the venv: the tests need nothing of it but the containers) and is mounted read-only
into the containers at ``/opt/smg-site`` by the OCI runtime wrapper (oci_runtime.py)
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

VERSION = "1.13.0"
"""The SMG release the tests are proven on (pyproject's ``router-test`` extra, .ci/run)."""
# One folder per interpreter: the containers run the tests' own Python, and a --target
# install is made for one (its markers and its compiled dependencies).
SMG_SITE = Path(os.environ.get(
    "SPARKTUI_TEST_SMG", f"/var/tmp/sparktui-smg/py{platform.python_version()}/site"))
IN_CONTAINER = "/opt/smg-site"
IMAGE = "sparktest/smg:latest"
REF = f"lightseekorg/smg:{VERSION}"
INSTALL = f"pip install --target {SMG_SITE} 'smg=={VERSION}'"

ENTRYPOINT = f'''#!/usr/bin/python3
"""python3 -m smg.launch_router ARGS, as the real image's entrypoint runs it. Like the
test engine (sparktest/node.py), a wildcard --host on the host network binds this
node's address (its --prometheus-host too)."""
import os
import runpy
import sys

sys.path = [{IN_CONTAINER!r}] + [p for p in sys.path if not p.startswith("/opt/sparktest")]
args = sys.argv[1:]
for flag in ("--host", "--prometheus-host"):
    if flag in args and os.environ.get("SPARKTEST_HOST_NETWORK", "1") == "1":
        at = args.index(flag) + 1
        if at < len(args) and args[at] in ("0.0.0.0", "::"):
            args[at] = os.environ.get("SPARKTUI_NODE_ADDR", args[at])
sys.argv = ["smg.launch_router", *args]
runpy.run_module("smg.launch_router", run_name="__main__", alter_sys=True)
'''

PYTHON_DIR = "/opt/smg-bin"
PYTHON = f'''#!/usr/bin/python3
"""The image's python3, as lightseekorg/smg's venv has it (smg importable): sparktui runs
``python3 -c KEY_READER ARGS`` (sparktui/plan/router.py). The real interpreter with SMG's
folder as its path; like the entrypoint above, a wildcard --host on the host network binds
this node's address."""
import os
import sys

args = sys.argv[1:]
for flag in ("--host", "--prometheus-host"):
    if flag in args and os.environ.get("SPARKTEST_HOST_NETWORK", "1") == "1":
        at = args.index(flag) + 1
        if at < len(args) and args[at] in ("0.0.0.0", "::"):
            args[at] = os.environ.get("SPARKTUI_NODE_ADDR", args[at])
os.execve("/usr/bin/python3", ["python3", *args],
          {{**os.environ, "PYTHONPATH": {IN_CONTAINER!r}}})
'''


def available() -> bool:
    return (SMG_SITE / "smg" / "launch_router.py").is_file()


def required() -> None:
    """Skipped without SMG's install, a failure under CI (like the hosts)."""
    if not available():
        import pytest

        message = f"The SMG router is not installed for the tests: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def mounts() -> list[list[str]]:
    """``[host, container]`` read-only binds the OCI wrapper adds to every container."""
    return [[str(SMG_SITE), IN_CONTAINER]] if available() else []


SKIP = {"site-packages", "__pycache__", "test", "tests", "idlelib", "tkinter", "turtledemo",
        "ensurepip", "_tkinter"}


def _extra_files() -> list[Path]:
    """What the base image leaves out of the standard library, and the system libraries
    its extensions and SMG's link (SMG's own are in the mounted folder)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in stdlib.rglob("*") if p.is_file() and not SKIP & set(p.parts)
             and not any(part.startswith("config-") for part in p.parts)]
    libs: set[Path] = set()
    for so in [*(p for p in files if p.suffix == ".so"), *SMG_SITE.rglob("*.so*")]:
        libs.update(lib for lib in build.shared_libraries(so)
                    if SMG_SITE not in Path(os.path.realpath(lib)).parents)
    base = set(build._host_files())
    return [p for p in files + sorted(libs) if p not in base]


def context() -> bytes:
    """The build context: a Dockerfile and the files it copies onto the base image."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as raw:
        t = build._Tar(raw)
        t.file("Dockerfile", ("FROM sparktest/base:latest\nCOPY root/ /\n"
                              f"ENV PATH={PYTHON_DIR}:/usr/local/bin:/usr/bin:/bin\n"
                              'ENTRYPOINT ["/usr/local/bin/smg-router"]\nCMD []\n').encode())
        for path in _extra_files():
            t.copy(path, "root/" + str(path).lstrip("/"))
        t.file("root/usr/local/bin/smg-router", ENTRYPOINT.encode(), 0o755)
        t.file(f"root{PYTHON_DIR}/python3", PYTHON.encode(), 0o755)
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
