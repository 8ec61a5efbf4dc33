"""docker's driver: its Engine API first, its CLI whenever the API cannot answer.

The reads every refresh makes (the listing, a container's state, an image's ID and its
own labels) go through the node's Docker engine API (``docker_api``), which starts no
process on the node; anything the API cannot answer is asked of the CLI again
(``Driver``), whose answers and errors are the ones people know. Everything else (run,
stop, remove, logs, the GPU probe) is the CLI's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sparktui.engine.drivers.base import Driver
from sparktui.engine.drivers.docker_api import (
    docker_image_id,
    docker_listing,
    docker_repo_digests,
    docker_state,
    image_run_labels,
)
from sparktui.engine.remote.transport import Completed, Reason, Transport
from sparktui.i18n import N_
from sparktui.plan.runtime.base import Listing, State
from sparktui.plan.runtime.docker import Docker
from sparktui.plan.runtime.docker_node import (
    NO_GPU_DRIVER,
    TOOLKIT_FIX,
    VERSION_COMMAND,
    docker_error,
    gpu_probe_command,
    gpus_given,
    gpus_value,
    repo_digests_command,
)
from sparktui.said import Code, Said, Text, said


class GpuSaid(Code):
    EXIT_STATUS = N_("exit status {code}")
    NO_TOOLKIT = N_("`--gpus {gpus}` cannot work on {node}: its docker has no NVIDIA container "
                    "runtime ({said}); install the NVIDIA Container Toolkit on {node} (it "
                    "brings nvidia-container-runtime-hook), then restart docker: {fix}")
    GPUS_FAIL = N_("`--gpus {gpus}` does not work on {node}: {said}; check its GPU and driver "
                   "(sparktui doctor, nvidia-smi on {node}), and reboot after a driver update")


class DockerDriver(Driver):
    lists_directly = True
    unanswered = Reason.DOCKER_UNREACHABLE

    def __init__(self) -> None:
        super().__init__(Docker())

    # The node's docker itself, for ``sparktui doctor``:
    def version_command(self) -> str:
        """Prints the daemon's version; its error when it does not answer."""
        return VERSION_COMMAND

    def gpu_probe_command(self, image: str, gpus: str) -> str:
        """Exit 0 when ``--gpus gpus`` works with ``image`` (``docker.gpu_probe_command``)."""
        return gpu_probe_command(image, gpus)

    async def listing(self, t: Transport, timeout: float | None = None) -> Listing | None:
        return await docker_listing(t, timeout)

    async def state(self, t: Transport, name: str, timeout: float | None = None) -> State:
        state = await docker_state(t, name, timeout)
        return state if state is not None else await super().state(t, name, timeout)

    async def image_id(self, t: Transport, image: str) -> Completed | None:
        found = await docker_image_id(t, image)
        return Completed(0, found, "") if found is not None else await super().image_id(t, image)

    async def repo_digests(self, t: Transport, image: str, timeout: float | None = None
                           ) -> Completed | None:
        found = await docker_repo_digests(t, image, timeout)
        if found is not None:
            return Completed(0, json.dumps(found), "")
        return await t.run(repo_digests_command(image), timeout=timeout)

    async def image_run_labels(self, t: Transport, image_ids: Sequence[str],
                               timeout: float | None = None) -> dict[str, str | None]:
        return await image_run_labels(t, list(image_ids), timeout)

    async def gpus_refusal(self, t: Transport, image: str, launch: list[str],
                           node: str) -> Said | None:
        """Asked of the node's dockerd with a container of the image that runs ``true``
        (``gpu_probe_command``), so docker's raw error does not come at launch."""
        gpus = gpus_value(launch)
        if gpus is None:
            return None
        probe = await t.run(self.gpu_probe_command(image, gpus))
        if probe.ok or gpus_given(probe.stderr + probe.stdout):
            return None
        error = docker_error(probe.stderr or probe.stdout)[:300]
        answer: Text = error or said(GpuSaid.EXIT_STATUS, code=probe.exit_code)
        if NO_GPU_DRIVER in error:
            return said(GpuSaid.NO_TOOLKIT, gpus=gpus, node=node, said=answer, fix=TOOLKIT_FIX)
        return said(GpuSaid.GPUS_FAIL, gpus=gpus, node=node, said=answer)


DOCKER = DockerDriver()
"""Also for ``doctor``'s look at each node's docker (its daemon, its GPU runtime)."""
