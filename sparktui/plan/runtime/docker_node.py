"""The node's docker itself, apart from any workload: its daemon's version and whether
it can give a container GPUs (``sparktui doctor``, serve's preflight through the docker
driver)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

VERSION_COMMAND = shlex.join(["docker", "info", "--format", "{{.ServerVersion}}"])
"""Prints the daemon's version; its error when it does not answer (``sparktui doctor``)."""


def repo_digests_command(image: str) -> str:
    """Prints the image's ``RepoDigests`` as JSON (``sparktui pin``, serve's record of the
    digest a mutable tag resolved to); docker's error when it has no such image."""
    return shlex.join(["docker", "image", "inspect", "--format", "{{json .RepoDigests}}",
                       image])


def gpu_probe_command(image: str, gpus: str) -> str:
    """Whether ``docker run --gpus <gpus>`` works on the node, asked of its dockerd: it
    selects the NVIDIA device driver (it has one only when it found
    ``nvidia-container-runtime-hook`` on its PATH at its start) and runs the hook only
    when a container starts; ``docker info`` and ``docker create`` say nothing of it. So a
    container of the image starts, runs ``true`` and is removed (``--rm``: by the daemon
    too when the start fails); no network, nothing else. Exit 0: it works; else docker's
    error. ``docker container run``: not to be taken for a workload's ``docker run``."""
    return shlex.join(["docker", "container", "run", "--rm", "--gpus", gpus,
                       "--network", "none", "--entrypoint", "true", image])


NO_GPU_DRIVER = "could not select device driver"
"""dockerd's word for ``--gpus`` when it has no NVIDIA driver: no hook on its PATH."""
TOOLKIT_FIX = "sudo apt-get install -y nvidia-container-toolkit && sudo systemctl restart docker"
"""What gives a node's dockerd the NVIDIA hook (it looks for it at its start only)."""


PROBE_NOT_FOUND = '"true": executable file not found'
"""The probe's failure when its image has no ``true`` (distroless, scratch): runc looks a
command up after the prestart hooks ran, so the GPUs were given (``gpus_given``)."""


def gpus_given(said: str) -> bool:
    """Whether what the probe said (exit 0 aside) still shows ``--gpus`` works."""
    return PROBE_NOT_FOUND in said


def docker_error(text: str) -> str:
    """The first line of what docker said, without its ``docker: Error response from
    daemon:`` prefix ("" when it said nothing)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line.removeprefix("docker: ").removeprefix("Error response from daemon: ")


def gpus_value(argv: Sequence[str]) -> str | None:
    """The ``--gpus`` value a ``docker run`` argv asks for (None: it asks for none)."""
    for i, arg in enumerate(argv):
        if arg == "--gpus" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--gpus="):
            return arg.split("=", 1)[1]
    return None
