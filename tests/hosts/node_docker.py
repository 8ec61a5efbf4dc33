"""A simulated node's Docker engine: its own real dockerd (tests/hosts/dockerd.py)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from typing import Any

from .dockerapi import DockerApiError, normalize_ref


class DockerNode:
    """The docker side of ``Node``; ``daemon`` is the TestDaemon the cluster lent it."""

    daemon: Any
    cluster: Any
    env: dict[str, str]

    def docker(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """The real docker client against this node's daemon (not recorded)."""
        env = {**os.environ, "DOCKER_HOST": self.daemon.host, "HOME": self.env["HOME"]}
        return subprocess.run(["docker", *args], env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    # -- images ------------------------------------------------------------------------
    def set_images(self, refs: list[str] | dict[str, Any] | None) -> None:
        """None: the test bed's default set. Otherwise exactly these refs."""
        self.daemon.set_images(None if refs is None else list(refs))

    def add_image(self, ref: str, variant: str | None = None) -> str:
        """Tag ``ref`` on this node; a ``variant`` is an image of its own (its own ID), as
        when nodes pulled the same tag at different times. Returns the image ID."""
        return self.daemon.add_image(ref, variant)

    def remove_image(self, ref: str) -> None:
        with contextlib.suppress(DockerApiError):
            self.daemon.api.untag(normalize_ref(ref))

    def image_id(self, ref: str) -> str | None:
        return self.daemon.api.image_id(normalize_ref(ref))

    # -- containers --------------------------------------------------------------------
    def containers(self) -> dict[str, dict]:
        """``docker inspect`` of every container on the node, keyed by name."""
        found = {}
        for item in self.daemon.api.containers():
            with contextlib.suppress(DockerApiError):
                info = self.daemon.api.inspect(item["Id"])
                found[info["Name"].lstrip("/")] = info
        return found

    def container_pid(self, name: str) -> int | None:
        """The host PID of the container's main process (None when it is not running)."""
        try:
            pid = self.daemon.api.inspect(name)["State"]["Pid"]
        except DockerApiError:
            return None
        return pid or None

    def remove_containers(self) -> None:
        if not self.daemon.running:
            return
        with contextlib.suppress(OSError, DockerApiError):
            for item in self.daemon.api.containers():
                with contextlib.suppress(DockerApiError):
                    self.daemon.api.remove(item["Id"])

    # -- faults ------------------------------------------------------------------------
    def docker_down(self) -> None:
        """The node's dockerd dies: every docker command fails to reach it, as when
        the daemon crashed or was stopped (``docker_up()`` starts it again)."""
        self.cluster.broken = True
        self.daemon.kill()

    def without_gpu_runtime(self) -> None:
        """The node's dockerd restarted without the NVIDIA hook on its PATH: ``docker run
        --gpus all`` creates the container, then fails to start it (`could not select
        device driver "" with capabilities: [[gpu]]`), as on a node without the NVIDIA
        container toolkit. The daemon gets the hook back when the cluster lets it go."""
        self.cluster.broken = True
        self.daemon.set_gpu_hook(False)

    def docker_up(self) -> None:
        if not self.daemon.running:
            self.daemon.spawn()
