"""Workloads as docker containers, labelled ``sparktui.*`` so they are found from the node."""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from sparktui import untrusted_json
from sparktui.plan.runtime.base import (
    MISSING,
    READ_LABELS,
    RUN_LABEL,
    EngineLaunch,
    Found,
    Launch,
    Listing,
    Output,
    Removal,
    Runtime,
    ServiceLaunch,
    State,
    Unanswered,
)
from sparktui.plan.runtime.docker_node import docker_error
from sparktui.plan.runtime.foreign import Foreign, Unlisted
from sparktui.said import Text, said

LABEL_PREFIX = "sparktui."
_ERROR = "@@sparktui-docker-error@@"
_NO_SUCH = re.compile(r"^(?:Error(?: response from daemon)?: )?No such (?:object|container): ",
                      re.IGNORECASE | re.MULTILINE)
"""What ``docker inspect`` prints of a name it does not have (docker.io 20.10: ``Error:
No such object: NAME``; ``docker container inspect``: ``Error response from daemon: No
such container: NAME``); anything else it prints on failure says the daemon did not
answer, and nothing of the container."""
STATE_ERROR_CHARS = 300

# A docker that cannot answer is reported with its error (never read as "nothing
# runs"); a node without docker (exit 127) has no containers.
_LIST = (
    f"ids=$(docker ps -aq --filter label={LABEL_PREFIX}recipe 2>&1); rc=$?; "
    'if [ "$rc" -eq 127 ]; then echo "[]"; '
    f'elif [ "$rc" -ne 0 ]; then echo {_ERROR}; printf "%s\\n" "$ids" | head -n 3; '
    'elif [ -n "$ids" ]; then docker inspect $ids 2>/dev/null; else echo "[]"; fi'
)


# The Docker engine API, for the reads of every refresh (engine/drivers/docker_api.py):
# the socket the node's docker CLI talks to, and the requests that list and inspect.
# Paths carry no version: the daemon answers in its own (Docker 29 refuses versions
# below 1.44, Debian 12's Docker 20.10 knows none above 1.41).
#
# The socket is the one the CLI would choose (docker/cli ``resolveContextName``):
# ``$DOCKER_HOST`` when set and ``$DOCKER_CONTEXT`` is not, the default socket when
# neither is set and no context is chosen in ``config.json``; any other case, the CLI
# says. Read by the shell, that costs no start of docker's Go client (about 30 ms of CPU
# per connection, the most frequent docker call of a dashboard before).
ENDPOINT = (
    'if [ -n "${DOCKER_HOST:-}" ] && [ -z "${DOCKER_CONTEXT:-}" ]; then '
    'printf "%s\\n" "$DOCKER_HOST"; '
    'elif [ -z "${DOCKER_HOST:-}${DOCKER_CONTEXT:-}" ] && ! grep -qs currentContext '
    '"${DOCKER_CONFIG:-$HOME/.docker}/config.json"; then '
    "echo unix:///var/run/docker.sock; "
    "else docker context inspect --format '{{.Endpoints.docker.Host}}' 2>/dev/null; fi")
API_LIST = ("/containers/json?all=1&filters="
            + quote(json.dumps({"label": [f"{LABEL_PREFIX}recipe"]}), safe=""))


def socket_path(endpoint_output: str) -> str | None:
    """The Unix socket of ``ENDPOINT``'s answer; None for any other kind of endpoint
    (tcp://, ssh://) or no answer: those are left to the docker CLI."""
    host = endpoint_output.strip()
    path = host[len("unix://"):] if host.startswith("unix://") else ""
    return path if path.startswith("/") else None


def api_inspect(name: str) -> str:
    """The API path of one container's ``docker inspect``."""
    return f"/containers/{quote(name, safe='')}/json"


def api_image(image: str) -> str:
    """The API path of ``docker image inspect`` (a reference keeps its ``/`` and ``:``)."""
    return f"/images/{quote(image, safe='/:@')}/json"


def api_image_id(body: str) -> str:
    """``image_id_command``'s answer from an image inspect (ValueError: not one)."""
    image_id = untrusted_json.loads(body).get("Id")
    if not isinstance(image_id, str) or not image_id.startswith("sha256:"):
        raise ValueError("no image Id")
    return image_id


def api_ids(body: str) -> list[str]:
    """The container IDs of ``API_LIST``'s answer (ValueError: not such an answer)."""
    items = untrusted_json.loads(body)
    if not isinstance(items, list):
        raise ValueError("not a list of containers")
    return [item["Id"] for item in items
            if isinstance(item, dict) and isinstance(item.get("Id"), str) and item["Id"]]


def api_state(body: str) -> State:
    """``state_command``'s meaning from an inspect answer (ValueError: not one)."""
    state = _mapping(_mapping(untrusted_json.loads(body)).get("State"))
    status = state.get("Status")
    if not isinstance(status, str) or not status:
        raise ValueError("no State.Status")
    code = state.get("ExitCode")
    return State(status, None if status == "running" or not isinstance(code, int) else code)


def found_in_inspect(body: str) -> Found | None:
    """One container of an inspect answer, as ``parse_list`` reads it (None: it names no
    container). ValueError: not JSON, or not an object."""
    item = untrusted_json.loads(body)
    if not isinstance(item, dict):
        raise ValueError("not a container")
    return _found(item)


def image_run_label(body: str) -> str | None:
    """The value an image's own ``LABEL`` gives ``RUN_LABEL`` (None: none), from its
    inspect answer (ValueError: not one)."""
    item = untrusted_json.loads(body)
    if not isinstance(item, dict):
        raise ValueError("not an image")
    value = _mapping(_mapping(item.get("Config")).get("Labels")).get(LABEL_PREFIX + RUN_LABEL)
    return value if isinstance(value, str) else None


def image_labels_command(image_ids: Sequence[str]) -> str:
    """One ``docker image inspect`` of every image named, for ``parse_image_labels``."""
    return shlex.join(["docker", "image", "inspect", "--format",
                       "{{json .Id}} {{json .Config.Labels}}", *image_ids]) + " 2>/dev/null"


def parse_image_labels(text: str) -> dict[str, str | None]:
    """Each image's own ``RUN_LABEL`` value by ID, from ``image_labels_command``'s output;
    a line it cannot read names no image."""
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        image_id, _, labels = line.partition(" ")
        try:
            image_id, labels = untrusted_json.loads(image_id), untrusted_json.loads(labels)
        except ValueError:
            continue
        if isinstance(image_id, str):
            value = _mapping(labels).get(LABEL_PREFIX + RUN_LABEL)
            found[image_id] = value if isinstance(value, str) else None
    return found


def stamp_run(argv: list[str], run_id: str) -> list[str]:
    """A ``docker run`` argv with ``RUN_LABEL`` set to ``run_id`` (before the image)."""
    if argv[:2] != ["docker", "run"]:
        raise ValueError("not a docker run")
    return [*argv[:2], "--label", f"{LABEL_PREFIX}{RUN_LABEL}={run_id}", *argv[2:]]


def sweep_command(labels: Mapping[str, str], stop_seconds: int, unreachable_exit: int,
                  then: str) -> str:
    """Stop (``stop_seconds`` each) and remove every container carrying all of ``labels``,
    printing their names, then run ``then``. A node without docker has none (exit 0);
    one whose daemon does not answer exits ``unreachable_exit`` with docker's words,
    never "none there"."""
    filters = [arg for key, value in labels.items()
               for arg in ("--filter", f"label={LABEL_PREFIX}{key}={value}")]
    listing = shlex.join(["docker", "ps", "-aq", *filters])
    names = shlex.join(["docker", "inspect", "--format", "{{.Name}}"])
    stop = shlex.join(["docker", "stop", "-t", str(stop_seconds)])
    remove = shlex.join(["docker", "rm", "-f"])
    return ("command -v docker >/dev/null 2>&1 || exit 0; "
            f"ids=$({listing}) || exit {unreachable_exit}; [ -n \"$ids\" ] || exit 0; "
            f"{names} $ids 2>/dev/null | sed 's,^/,,'; {stop} $ids >/dev/null 2>&1; "
            f"{remove} $ids >/dev/null 2>&1; {then}")


def blank_labels(given: Sequence[str]) -> list[str]:
    """``--label`` arguments that set each of ``READ_LABELS`` not in ``given`` to the
    empty value: an image's ``LABEL`` of that name then says nothing for the container."""
    argv: list[str] = []
    for key in READ_LABELS:
        if key not in given:
            argv += ["--label", f"{LABEL_PREFIX}{key}="]
    return argv


class Docker(Runtime):
    name = "docker"
    runs_image = True
    keeps_ended = True
    can_enter = True
    can_inspect = True

    def launch(self, spec: Launch) -> list[str]:
        argv = ["docker", "run", "-d", "--name", spec.name]
        for key, value in spec.labels.items():
            argv += ["--label", f"{LABEL_PREFIX}{key}={value}"]
        argv += blank_labels(list(spec.labels))
        argv += _host_options(spec)
        for mount in spec.mounts:
            argv += ["-v", mount.volume]
        for key, value in spec.env.items():
            argv += ["-e", f"{key}={value}"]
        command = spec.command
        if command.script is not None:
            return [*argv, "--entrypoint", "sh", spec.image, "-c", command.script]
        if command.replaces_entrypoint:
            return [*argv, "--entrypoint", command.argv[0], spec.image, *command.argv[1:]]
        return [*argv, spec.image, *command.argv]  # the image's entrypoint runs the argv

    def stamp(self, argv: list[str], run_id: str) -> list[str]:
        return stamp_run(argv, run_id)

    def image_id_command(self, image: str) -> str:
        return shlex.join(["docker", "image", "inspect", "--format", "{{.Id}}", image])

    def workload_image_command(self, name: str) -> str:
        return shlex.join(["docker", "inspect", "--format", "{{.Image}}", name])

    def state_command(self, name: str) -> str:
        # stderr kept: only docker's "No such object" says the container is not there
        return shlex.join(["docker", "inspect", "--format",
                           "{{.State.Status}} {{.State.ExitCode}}", name])

    def parse_state(self, out: Output) -> State:
        parts = out.stdout.split()
        if out.exit_code != 0 or not parts:
            words = out.stderr.strip() or out.stdout.strip()
            if _NO_SUCH.search(words) is not None:
                return State(MISSING)
            # A daemon that does not answer says nothing of the container: unknown.
            raise Unanswered(docker_error(words)[:STATE_ERROR_CHARS])
        code = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdecimal() else None
        return State(parts[0], None if parts[0] == "running" else code)

    def logs_command(self, name: str, tail: int | None, follow: bool) -> str:
        argv = ["docker", "logs"] + (["--tail", str(tail)] if tail is not None else [])
        if follow:
            argv.append("--follow")
        # exec: a stream's program must be the one its transport ends (ended_with_channel)
        return "exec " + shlex.join([*argv, name]) + " 2>&1"

    def signal_command(self, name: str) -> str:
        return shlex.join(["docker", "kill", "--signal", "TERM", name]) + " >/dev/null 2>&1"

    def removal(self, name: str, grace_seconds: float) -> Removal:
        """docker's own stop: SIGTERM, the grace period, then SIGKILL; then always rm."""
        grace = max(0, math.ceil(grace_seconds))
        return Removal(remove=shlex.join(["docker", "rm", "-f", name]),
                       stop=shlex.join(["docker", "stop", "-t", str(grace), name]),
                       stop_seconds=grace)

    def removed(self, out: Output) -> bool:
        return out.exit_code == 0 or "no such container" in (out.stderr + out.stdout).lower()

    def list_command(self) -> str:
        return _LIST

    def parse_list(self, text: str) -> Listing:
        if text.lstrip().startswith(_ERROR):
            why = text.lstrip()[len(_ERROR):].strip()
            return Listing([], why or "docker failed")
        try:
            items = untrusted_json.loads(text.strip() or "[]")
        except ValueError:
            return Listing([], said(Unlisted.NOT_JSON))
        if not isinstance(items, list):
            return Listing([], said(Unlisted.NOT_A_LIST))
        found = (_found(item) for item in items if isinstance(item, dict))
        return Listing([f for f in found if f is not None])


SHELL = "if command -v bash >/dev/null 2>&1; then exec bash; else exec sh; fi"
"""What ``docker exec`` runs for a shell: bash where the image has it, else sh."""


def exec_argv(name: str, command: Sequence[str] = (), *, tty: bool = True) -> list[str]:
    """``docker exec`` in a container (run on its node): ``command``, or a shell."""
    argv = ["docker", "exec", "-it" if tty else "-i", name]
    return [*argv, *command] if command else [*argv, "sh", "-c", SHELL]


def inspect_command(name: str) -> str:
    """The container's full ``docker inspect`` (a JSON list of one)."""
    return shlex.join(["docker", "inspect", "--type", "container", name])


def _host_options(spec: Launch) -> list[str]:
    match spec:
        case EngineLaunch():
            # Only flags that take effect: docker ignores --shm-size under --ipc host (the
            # host's /dev/shm) and -p under --network host (the port is the host's).
            argv = ["--gpus", "all"]
            argv += ["--shm-size", spec.shm_size] if spec.shm_size else ["--ipc", "host"]
            if spec.multi_node:
                argv += ["--network", "host", "--ulimit", "memlock=-1",
                         "--ulimit", "stack=67108864"]
                if spec.fabric_ib:
                    argv += ["--device", "/dev/infiniband"]
            elif spec.publish is not None:
                argv += ["-p", f"{spec.publish}:{spec.publish}"]
            return argv
        case ServiceLaunch():
            return ["--network", "host", *(["--gpus", "all"] if spec.gpus else []),
                    *spec.docker_flags]
    return []


def _found(item: dict[str, Any]) -> Found | None:
    """One entry of ``docker inspect``, whatever its fields hold (a daemon or a node may
    answer anything); None when it names no container. Labels that are not text make
    it foreign: what it is cannot be read."""
    name = _text(item.get("Name")).lstrip("/")
    if not name:
        return None
    config = _mapping(item.get("Config"))
    raw = config.get("Labels")
    labels: dict[str, str] = {}
    foreign: Text = "" if isinstance(raw, dict | None) else said(Foreign.LABELS_NOT_OBJECT)
    for key, value in _mapping(raw).items():
        if isinstance(key, str) and key.startswith(LABEL_PREFIX):
            if isinstance(value, str):
                labels[key[len(LABEL_PREFIX):]] = value
            else:
                foreign = foreign or said(Foreign.LABEL_NOT_TEXT, key=repr(key[:60]))
    state = _mapping(item.get("State"))
    status = _text(state.get("Status")) or "unknown"
    code = state.get("ExitCode")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    args = item.get("Args")
    argv = [item.get("Path"), *(args if isinstance(args, list) else [])]
    started = state.get("StartedAt")
    return Found(
        name=name, labels=labels, state=status,
        status=status if status == "running" else f"{status} ({exit_code})",
        image=_text(config.get("Image")), started_at=started if isinstance(started, str)
        else None, restarts=_count(item.get("RestartCount")),
        exit_code=None if status == "running" else exit_code,
        argv=tuple(a for a in argv if isinstance(a, str) and a),
        image_id=_text(item.get("Image")), foreign=foreign)


def _mapping(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return 0
    try:
        return int(value)
    except ValueError:
        return 0
