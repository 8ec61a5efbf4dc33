"""A runtime's side effects on a node: its commands (``sparktui.plan.runtime``) run there.

One driver per runtime (``sparktui.engine.drivers.DRIVERS``), as there is one transport
per way of reaching a node (``engine.remote``): serve, stop, the services' probes, health,
the supervisor and the router reach a workload through its driver and never ask which
runtime it is. This base runs each command through the runtime's CLI, which is all tmux
needs; a driver with a cheaper way to read (docker's Engine API) overrides those reads
and comes back here whenever that way cannot answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.remote.transport import Completed, NodeError, Reason, Transport
from sparktui.engine.workloads.run_id import new_run_id
from sparktui.labels import grace_wait
from sparktui.plan.runtime.base import Listing, Runtime, State, Unanswered
from sparktui.said import Said, Text

STOP_MARGIN_SECONDS = 15.0
"""How much longer than the runtime's grace period a stop waits before giving up on it."""


class Driver:
    """Runs ``runtime``'s commands on a node, each through the transport given."""

    lists_directly: ClassVar[bool] = False
    """``listing`` reads without the shell: discovery runs it beside the shell's listing
    of the other runtimes."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def name(self) -> RuntimeName:
        return self.runtime.name

    def stamp(self, argv: list[str]) -> list[str]:
        """``argv`` (a plan's launch of this runtime) with a fresh run id (``run_id``)."""
        return self.runtime.stamp(argv, new_run_id())

    async def listing(self, t: Transport, timeout: float | None = None) -> Listing | None:
        """sparktui's workloads on the node, read without the shell; None: the runtime's
        ``list_command`` lists them (in discovery's one shell line with the others')."""
        return None

    unanswered: ClassVar[Reason] = Reason.SSH_ERROR
    """The node's error when the runtime itself does not answer a state read."""

    async def state(self, t: Transport, name: str, timeout: float | None = None) -> State:
        """MISSING only when the runtime says it has no such workload; a runtime that does
        not answer raises the node's error, as a node that does not answer does."""
        out = await t.run(self.runtime.state_command(name), timeout=timeout)
        try:
            return self.runtime.parse_state(out)
        except Unanswered as exc:
            raise NodeError(t.node.name, self.unanswered, exc.detail) from None

    async def image_id(self, t: Transport, image: str) -> Completed | None:
        """The ID of ``image`` on the node as the runtime's image command answers it (its
        error when the image is not there); None: the runtime runs no images."""
        command = self.runtime.image_id_command(image)
        return None if command is None else await t.run(command)

    async def repo_digests(self, t: Transport, image: str, timeout: float | None = None
                           ) -> Completed | None:
        """The image's repo digests as the runtime's CLI prints them (JSON), or its error;
        None: the runtime runs no images (nothing to pin)."""
        return None

    async def image_run_labels(self, t: Transport, image_ids: Sequence[str],
                               timeout: float | None = None) -> dict[str, str | None]:
        """Each image's own ``RUN_LABEL`` value (None: it has none), by ID; an image that
        cannot be read is left out. A runtime without images has none to read."""
        return {}

    async def workload_image(self, t: Transport, name: str, timeout: float) -> str | None:
        """The ID of the image workload ``name`` runs (None: no images, or not said)."""
        command = self.runtime.workload_image_command(name)
        if command is None:
            return None
        out = await t.run(command, timeout=timeout)
        said = out.stdout.strip()
        return said.splitlines()[0][:80] if out.ok and said.startswith("sha256:") else None

    async def gpus_refusal(self, t: Transport, image: str, launch: list[str],
                           node: str) -> Said | None:
        """Why the node cannot give ``launch`` the GPUs it asks for (None: it can, or the
        runtime gives none: a host command sees the host's GPUs)."""
        return None

    async def last_lines(self, t: Transport, name: str, tail: int | None = None) -> str:
        """The workload's output so far (stderr included): the last ``tail`` lines, or all."""
        return (await t.run(self.runtime.logs_command(name, tail, follow=False))).stdout

    async def signal_stop(self, t: Transport, name: str) -> None:
        """Tell a head to stop serving now (SIGTERM), before its group is removed."""
        command = self.runtime.signal_command(name)
        if command is not None:
            await t.run(command)

    async def remove(self, t: Transport, name: str, grace_seconds: float = 30.0,
                     waiting: Callable[[Text], None] | None = None) -> Completed:
        """Stop (the engine gets its grace period, then SIGKILL), then always remove.

        The stop runs under a timeout of the grace period plus a margin, so an engine that
        needs all of it is waited for instead of abandoned a moment before it is killed;
        the remove runs whatever the stop said. A workload that is already gone is
        success. ``waiting`` is told what is waited for and how long before the stop
        runs: an engine that ignores SIGTERM holds the stop for the whole grace period,
        which must not pass in silence.
        """
        removal = self.runtime.removal(name, grace_seconds)
        if removal.stop is not None:
            if waiting is not None and removal.stop_seconds > 0:
                waiting(grace_wait(name, removal.stop_seconds))
            try:
                await t.run(removal.stop, timeout=removal.stop_seconds + STOP_MARGIN_SECONDS)
            except NodeError as exc:
                if exc.reason is not Reason.TIMEOUT:
                    raise
        result = await t.run(removal.remove)
        return Completed(0 if self.runtime.removed(result) else result.exit_code,
                         result.stdout, result.stderr)
