"""The supervisor on the head: a container on the head's docker, so it outlives the
operator's laptop.

Why a container and not a systemd unit: every node already has docker (it is how
sparktui runs workloads), a container needs no root for ``/etc/systemd`` and no Python
on the host, and it can be tested for real on docker alone. ``supervise --on-node``
copies what the supervisor needs to the head, in ``$HOME/.local/state/sparktui/
supervise/on-node``: a config with only this cluster and no secret (no Home Assistant),
the recipe, and the pins of the nodes' host keys; the key it reaches the nodes with is
already on the head (``supervise_key_path``, authorized on every node by the operator,
never copied from the operator's machine). Then it runs ``supervise_image`` with those
mounted read-only, on the host's network. Nothing restarts that container: a crash or
a reboot of the head ends supervision, and ``health`` says so (no heartbeat).

Any ``stop`` of the cluster (of its recipe) or ``supervise --end`` removes it and its
files, after the disarm mark is written (the supervisor usually ends by itself first).
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from sparktui.config.models import Cluster, Config, Node
from sparktui.config.runtime_name import RuntimeName
from sparktui.engine.drivers import driver_for
from sparktui.engine.progress import ProgressLog
from sparktui.engine.remote.hostkeys import pinned_lines
from sparktui.engine.remote.transport import NodeError, Reason, Transport
from sparktui.engine.results import Progress, ProgressSink
from sparktui.engine.supervise import remote, shell
from sparktui.engine.supervise.outcomes import Installed
from sparktui.engine.supervise.record import Lease
from sparktui.engine.supervise.shell import DIR
from sparktui.i18n import N_
from sparktui.plan.model import LaunchPlan, MountPlan
from sparktui.plan.runtime.base import Command, ServiceLaunch
from sparktui.plan.runtime.docker import sweep_command
from sparktui.said import Code, Layout, Text, joined, said
from sparktui.steps import Step, StepState

RUNTIME: RuntimeName = "docker"
"""What runs the supervisor (see above); its driver starts, reads and removes it."""
_DRIVER = driver_for(RUNTIME)
CONTAINER_PREFIX = "sparktui-supervise-"
LABEL = "supervisor"
"""Label of the container (``sparktui.supervisor``): its cluster. Not ``recipe``: it is
no workload."""
RECIPE_LABEL = "supervisor_recipe"
MOUNT = "/etc/sparktui"
KEY_MOUNT = "/run/sparktui-key/id"
FILES = "on-node"
STOP_SECONDS = 15
"""What ``docker stop`` gives the supervisor to write its record and free the lease."""

COPIED = ("ssh_user", "home_dir", "connect_timeout_seconds", "command_timeout_seconds",
          "health_timeout_seconds", "ready_timeout_seconds", "stop_grace_seconds",
          "telemetry_stall_seconds", "supervise_interval_seconds", "supervise_failure_checks",
          "supervise_max_restarts", "supervise_window_seconds", "supervise_backoff_seconds",
          "supervise_backoff_max_seconds", "supervise_lease_seconds",
          "supervise_memory_wait_seconds", "mount_aliases")
"""The config fields the supervisor needs; nothing else reaches the head."""


class InstallSaid(Code):
    """Why the supervisor could not be put on the head, and what its removal did."""

    LOCAL_NODE = N_("a cluster with a local node cannot run its supervisor on a node")
    HELD = N_("supervised already by {holder} ({mode})")
    NO_IMAGE = N_("the image {image} is not on {node}: build it there (`sparktui supervise "
                  "--dockerfile` prints its Dockerfile and how)")
    NO_KEY = N_("{node} has no readable key at {path} (supervise_key_path)")
    UNPINNED = N_("no recorded host key for {nodes}: run init-host-keys")
    HOME = N_("unexpected home folder on {node}: {path}")
    ENDED = N_("{container} is {state}")
    NO_LEASE = N_("{container} did not take the lease within {seconds:g} s")
    REMOVED = N_("removed {container}")
    NOT_REMOVED = N_("could not look for a supervisor container ({reason}); it ends on the "
                     "disarm mark")


class SupervisedCluster(Protocol):
    config: Config
    known_hosts: Path

    def cluster(self, name: str) -> Cluster: ...
    def transport(self, node: Node) -> Transport: ...


def container_name(cluster: str) -> str:
    return CONTAINER_PREFIX + cluster


def config_text(config: Config, cluster: Cluster) -> str:
    """The head's config: this cluster, the settings supervise uses, no secret."""
    import tomlkit

    data: dict[str, Any] = {name: getattr(config, name) for name in COPIED}
    data.update(ssh_key_path=KEY_MOUNT, known_hosts_path=f"{MOUNT}/known_hosts")
    # Without [clusters.router]: its key stays on the operator's machine, and a restart
    # on the head keeps the head's address, so the router's worker for it holds.
    data["clusters"] = [{k: v for k, v in cluster.model_dump().items() if k != "router"}]
    if cluster.name in config.nccl:
        data["nccl"] = {cluster.name: config.nccl[cluster.name].model_dump()}
    if cluster.name in config.before_serve:
        data["before_serve"] = {cluster.name: config.before_serve[cluster.name].model_dump()}
    return tomlkit.dumps(_without_none(data))


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def files_dir(home: str) -> str:
    """``home``: the absolute path the head's ``shell.DIR`` stands for."""
    return f"{home}/{FILES}"


def write_file_command(path: str) -> str:
    """Write stdin to ``path`` (its folder made first), readable by its owner only."""
    folder = path.rsplit("/", 1)[0]
    return (f"umask 077 && mkdir -p {shlex.quote(folder)} && "
            f"cat > {shlex.quote(path)}.tmp && mv {shlex.quote(path)}.tmp {shlex.quote(path)}")


def launch(*, cluster: str, recipe: str, home: str, key: str, image: str,
           interval: float | None) -> ServiceLaunch:
    """The supervisor's container on the head: a service of the host's network, its
    files and key mounted read-only, the image's entrypoint running ``supervise``. Its
    runtime launches it as every other (so no label its image bakes makes it a recipe's
    workload: every label discovery reads is set)."""
    argv = ["--config", f"{MOUNT}/config.toml", "--recipes", f"{MOUNT}/recipes",
            "supervise", recipe, "--cluster", cluster, "--mode", "on-node"]
    if interval is not None:
        argv += ["--interval", f"{interval:g}"]
    return ServiceLaunch(
        name=container_name(cluster), labels={LABEL: cluster, RECIPE_LABEL: recipe},
        env={}, image=image, command=Command(argv),
        mounts=[MountPlan(files_dir(home), MOUNT, read_only=True),
                MountPlan(key, KEY_MOUNT, read_only=True)],
        docker_flags=("--restart", "no"))


def run_argv(*, cluster: str, recipe: str, home: str, key: str, image: str,
             interval: float | None) -> list[str]:
    """What starts the supervisor on the head (every value is its own argument)."""
    return _DRIVER.runtime.launch(launch(cluster=cluster, recipe=recipe, home=home, key=key,
                                         image=image, interval=interval))


UNREACHABLE_EXIT = 3
"""``remove_command``'s exit when the node has docker but its daemon does not answer."""


def remove_command(cluster: str, recipe: str | None) -> str:
    """Stop and remove the cluster's supervisor container (of ``recipe`` only, if given)
    and its files; prints the names of the containers it removed. A node without docker
    has none; a node whose docker does not answer exits ``UNREACHABLE_EXIT`` with
    docker's words, never "none there"."""
    labels = {LABEL: cluster, **({RECIPE_LABEL: recipe} if recipe is not None else {})}
    return sweep_command(labels, STOP_SECONDS, UNREACHABLE_EXIT,
                         then=f"rm -rf {DIR}/{FILES}; true")


def key_command(path: str) -> str:
    """Succeeds when the head can read the key file (``~`` is the caller's to expand)."""
    return shlex.join(["test", "-r", path])


# -- over the nodes --------------------------------------------------------------------
WAIT_SECONDS = 60.0
"""How long the install waits for the new supervisor to take the lease."""
POLL_SECONDS = 0.5


async def install(engine: SupervisedCluster, plan: LaunchPlan, recipe_text: str, *,
                  interval: float | None, progress: ProgressSink) -> Installed:
    """Copy the supervisor's files to the head, start its container there, and wait until
    it holds the lease (it then serves the recipe itself unless its group runs)."""
    say = ProgressLog(progress)
    config = engine.config
    cluster = engine.cluster(plan.cluster)
    head = next(n for n in cluster.nodes if n.name == plan.head.name)
    t = engine.transport(head)
    name = container_name(cluster.name)

    def failed(detail: Text, holder: Lease | None = None) -> Installed:
        say(Step.SUPERVISE, head.name, StepState.FAILED, detail)
        return Installed(False, head.name, name, detail, holder)

    if any(n.local for n in cluster.nodes):
        return failed(said(InstallSaid.LOCAL_NODE))
    say(Step.SUPERVISE, head.name, StepState.STARTED, config.supervise_image)
    try:
        status = await remote.read_status(t, config.health_timeout_seconds)
        if status.error is not None:
            return failed(status.error)
        if (held := status.held_by) is not None:
            return failed(said(InstallSaid.HELD, holder=held.holder, mode=held.mode), held)
        image = await _DRIVER.image_id(t, config.supervise_image)
        if image is not None and not image.ok:
            return failed(said(InstallSaid.NO_IMAGE, image=config.supervise_image,
                               node=head.name))
        key = config.expand_home(config.supervise_key_path)
        if not (await t.run(key_command(key))).ok:
            return failed(said(InstallSaid.NO_KEY, node=head.name, path=key))
        pins = {n.name: pinned_lines(engine.known_hosts, n) for n in cluster.nodes}
        unpinned = [n for n, lines in pins.items() if not lines]
        if unpinned:
            return failed(said(InstallSaid.UNPINNED, nodes=unpinned))
        home = (await t.run(shell.home())).stdout.strip()
        if not home.startswith("/") or "\n" in home or ":" in home:
            return failed(said(InstallSaid.HOME, node=head.name, path=home[:200]))
        files = files_dir(home)
        known_hosts = "".join(line + "\n" for lines in pins.values() for line in lines)
        for path, text in ((f"{files}/config.toml", config_text(config, cluster)),
                           (f"{files}/recipes/{plan.recipe}/recipe.toml", recipe_text),
                           (f"{files}/known_hosts", known_hosts)):
            wrote = await t.run(write_file_command(path), stdin=text)
            if not wrote.ok:
                return failed(wrote.stderr.strip()[:200] or path)
        await t.run(_DRIVER.runtime.removal(name, 0).remove + " >/dev/null 2>&1; true")
        argv = run_argv(cluster=cluster.name, recipe=plan.recipe, home=home, key=key,
                        image=config.supervise_image, interval=interval)
        started = await t.run(shlex.join(_DRIVER.stamp(argv)))
        if not started.ok:
            return failed((started.stderr or started.stdout).strip()[:300])
        return await _held(t, name, say, config.health_timeout_seconds)
    except NodeError as exc:
        return failed(exc.said)


async def _held(t: Transport, name: str, say: ProgressLog, timeout: float) -> Installed:
    """Wait for the container's supervisor to hold the lease; its logs if it ended."""
    node = t.node.name
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        status = await remote.read_status(t, timeout)
        if status.active and status.lease is not None and status.lease.mode == "on-node":
            say(Step.SUPERVISE, node, StepState.OK, name)
            return Installed(True, node, name)
        state = await _DRIVER.state(t, name)
        if not state.running:
            tail = (await _DRIVER.last_lines(t, name, 15)).strip()
            detail: Text = said(InstallSaid.ENDED, container=name, state=str(state))
            if tail:
                detail = joined(Layout.LINES, detail, tail)
            say(Step.SUPERVISE, node, StepState.FAILED, detail)
            return Installed(False, node, name, detail)
        await asyncio.sleep(POLL_SECONDS)
    timed_out = said(InstallSaid.NO_LEASE, container=name, seconds=WAIT_SECONDS)
    say(Step.SUPERVISE, node, StepState.FAILED, timed_out)
    return Installed(False, node, name, timed_out)


async def remove(transports: Iterable[Transport], cluster: str, recipe: str | None,
                 progress: ProgressSink | None = None) -> list[tuple[str, str]]:
    """Remove the cluster's on-node supervisor from every node that has one: the
    (node, container) removed. A node that does not answer, or whose docker does not,
    is a warning naming it: whatever runs there ends on the disarm mark, but the
    operator is told that its container may still be there."""
    command = remove_command(cluster, recipe)
    say = ProgressLog(progress if progress is not None else _ignore)

    async def one(t: Transport) -> list[tuple[str, str]]:
        try:
            result = await t.run(command, timeout=STOP_SECONDS + 30)
        except NodeError as exc:
            say(Step.SUPERVISE, t.node.name, StepState.WARN,
                said(InstallSaid.NOT_REMOVED, reason=exc.said))
            return []
        if result.exit_code == UNREACHABLE_EXIT:
            why = joined(Layout.COLON, said(Reason.DOCKER_UNREACHABLE),
                         result.stderr.strip()[:200])
            say(Step.SUPERVISE, t.node.name, StepState.WARN,
                said(InstallSaid.NOT_REMOVED, reason=why))
            return []
        return [(t.node.name, line.strip()) for line in result.stdout.splitlines()
                if line.strip()]

    removed = [x for found in await asyncio.gather(*(one(t) for t in transports)) for x in found]
    for node, container in removed:
        say(Step.SUPERVISE, node, StepState.OK, said(InstallSaid.REMOVED, container=container))
    return removed


def _ignore(event: Progress) -> None:
    pass
