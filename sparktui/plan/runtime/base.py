"""What runs a workload on a node (an engine member, a service instance): the interface.

A runtime turns a runtime-neutral ``Launch`` into the argv that starts it, and gives the
shell lines that look at it (state), read it (logs), stop it and list what sparktui runs,
with the parsers for what those print. All of it is pure: the engine runs the commands
(its driver, ``sparktui.engine.drivers``). A new runtime is one module with a ``Runtime``
subclass, named in ``RUNTIMES`` (``sparktui/plan/runtime/__init__.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from sparktui.config.runtime_name import RuntimeName
from sparktui.plan.model import MountPlan
from sparktui.said import Text

MISSING = "missing"
"""The state of a workload that is not there (never started, removed, or gone for good)."""

RUN_LABEL = "run"
"""A value fresh for each workload sparktui starts (``new_run_id`` in the engine). The
plan never carries it (it is pure); the engine adds it at launch (``Runtime.stamp``). An
image's own ``LABEL``s are copied into its containers, so only a value nobody could know
before the launch tells a container sparktui made from one an image or a person made."""
RUN_ID_LENGTH = 16
"""Hex digits of a run id (``secrets.token_hex(8)``)."""
READ_LABELS = ("recipe", "cluster", "node", "rank", "role", "port", "after_stop",
               "mem_share", "service", "service_type", "service_index", "start",
               "critical", "terminal", "pool", "readiness", "metrics")
"""Every label discovery and its readers take from a workload, besides ``RUN_LABEL``. A
container sparktui makes sets each of them (empty when it has no value), so that no label
baked into its image speaks for it."""


@dataclass(frozen=True)
class Command:
    """What the workload runs: an argv, or a shell script ending in ``exec``."""

    argv: list[str]
    script: str | None = None
    replaces_entrypoint: bool = False
    """``argv[0]`` runs instead of the image's entrypoint (a Ray worker's ``ray``, a
    service's own command); a script always does (as ``sh -c``)."""

    @property
    def wrapped(self) -> list[str]:
        return ["sh", "-c", self.script] if self.script is not None else self.argv


@dataclass(frozen=True, kw_only=True)
class Launch:
    """One workload to start, whatever runs it. Runtimes without images ignore
    ``image`` and ``mounts`` (``Runtime.runs_image``)."""

    name: str  # the container or session name, unique on the node
    labels: dict[str, str]  # what it is; read back by ``Runtime.parse_list``
    env: dict[str, str]
    command: Command
    image: str = ""
    mounts: list[MountPlan] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class EngineLaunch(Launch):
    """One member of an engine group: every GPU and the host's IPC (or a /dev/shm of its
    own of ``shm_size``); the members of a group spread over nodes share the host's network
    (and its InfiniBand, with RDMA's limits), a single node publishes its port."""

    multi_node: bool = False
    fabric_ib: bool = False
    shm_size: str | None = None
    publish: int | None = None  # the head's API port, reachable from outside


@dataclass(frozen=True, kw_only=True)
class ServiceLaunch(Launch):
    """One service instance: the host's network; GPUs when the kind asks for them."""

    gpus: bool = False
    docker_flags: tuple[str, ...] = ()  # the kind's own (``ServiceKind.docker_flags``)


class Output(Protocol):
    """What a command printed (``engine.remote.transport.Completed`` is one)."""

    @property
    def exit_code(self) -> int: ...
    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...


@dataclass(frozen=True)
class State:
    """docker's words for a workload's state (running, exited, created, ...) or MISSING."""

    status: str
    exit_code: int | None = None  # when it is not running and the runtime keeps it

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def missing(self) -> bool:
        return self.status == MISSING

    def __str__(self) -> str:
        return self.status if self.exit_code is None else f"{self.status} {self.exit_code}"


class Unanswered(Exception):
    """The runtime did not say how a workload is (its daemon is down, its socket refused):
    never MISSING, which would be read as "it ended". ``detail`` is what it said instead
    (bounded); the engine raises it as the node's error (``Driver.state``)."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


@dataclass(frozen=True)
class Removal:
    """How a workload goes: ``stop`` (if any) gives it ``stop_seconds`` to end before it is
    killed; ``remove`` runs whatever ``stop`` said, and takes it away."""

    remove: str
    stop: str | None = None
    stop_seconds: int = 0


@dataclass(frozen=True)
class Found:
    """One workload a listing found, with sparktui's labels (keys lowercase, no prefix)."""

    name: str
    labels: dict[str, str]
    state: str
    status: str  # for people: "running", "exited (1)"
    image: str = ""
    started_at: str | None = None
    restarts: int = 0
    exit_code: int | None = None
    argv: tuple[str, ...] = ()  # what it runs, as the runtime reports it (docker: Path, Args)
    image_id: str = ""  # the image's ID (docker), whose own labels tell its from ours
    foreign: Text = ""
    """Why the listing itself cannot tell what the workload is (labels that contradict
    each other); empty when it can."""


@dataclass(frozen=True)
class Listing:
    found: list[Found]
    error: Text | None = None
    """Why the runtime could not list (its daemon is down, say): then what runs is unknown."""


class Runtime(ABC):
    """One runtime's commands, and what it can do. Code outside the runtimes' own modules
    (here and ``sparktui.engine.drivers``) asks these capabilities, never the name."""

    name: ClassVar[RuntimeName]
    runs_image: ClassVar[bool]
    """Has images: the workload runs in a container image (image, entrypoint, mounts,
    an image ID to compare across nodes); False: a command on the host."""
    keeps_ended: ClassVar[bool]
    """True: an ended workload stays, with its exit code, until it is removed; False: it
    vanishes (then a workload sparktui started that is MISSING has ended)."""
    can_enter: ClassVar[bool] = False
    """A shell can be opened inside the workload (``sparktui shell``, the dashboard's
    ``a``: ``docker.exec_argv``)."""
    can_inspect: ClassVar[bool] = False
    """The workload has a full description to read (``sparktui inspect``, the
    dashboard's ``i``: ``docker.inspect_command``)."""
    can_attach: ClassVar[bool] = False
    """The terminal can be handed to the workload's own console (``sparktui tmux``, the
    dashboard's ``t``: ``tmux.attach_argv``)."""

    @abstractmethod
    def launch(self, spec: Launch) -> list[str]:
        """The argv that starts ``spec`` detached on the node (without ``RUN_LABEL``)."""

    @abstractmethod
    def stamp(self, argv: list[str], run_id: str) -> list[str]:
        """``launch``'s argv with ``RUN_LABEL`` set to ``run_id``, as the engine runs it."""

    def image_id_command(self, image: str) -> str | None:
        """A shell line printing the ID of ``image`` on the node; None: no images."""
        return None

    def workload_image_command(self, name: str) -> str | None:
        """A shell line printing the ID of the image workload ``name`` runs; None: no
        images."""
        return None

    @abstractmethod
    def state_command(self, name: str) -> str: ...

    @abstractmethod
    def parse_state(self, out: Output) -> State: ...

    @abstractmethod
    def logs_command(self, name: str, tail: int | None, follow: bool) -> str:
        """A shell line that ``exec``s the program printing the workload's output (stderr
        included): the last ``tail`` lines (None: all), then with ``follow`` what comes,
        until the workload ends."""

    def signal_command(self, name: str) -> str | None:
        """A shell line telling the workload to stop now (SIGTERM); None: no such thing."""
        return None

    @abstractmethod
    def removal(self, name: str, grace_seconds: float) -> Removal: ...

    @abstractmethod
    def removed(self, out: Output) -> bool:
        """Whether the workload is gone after ``Removal.remove`` printed ``out`` (one that
        was gone already is)."""

    @abstractmethod
    def list_command(self) -> str:
        """A shell line listing sparktui's workloads on the node, for ``parse_list``."""

    @abstractmethod
    def parse_list(self, text: str) -> Listing: ...
