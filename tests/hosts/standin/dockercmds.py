"""The docker stand-in's subcommands (stdlib only; copied into the cluster bin dir)."""

from __future__ import annotations

import contextlib
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from dockerquery import (
    cmd_image_rm,
    cmd_images,
    cmd_info,
    cmd_inspect,
    cmd_ps,
    cmd_pull,
    cmd_version,
    need_args,
)  # fmt: skip
from dockersim import (
    DockerError,
    Flags,
    container_paths,
    find,
    image_id,
    iso,
    must_find,
    normalize_ref,
    proc_alive,
    proc_start_time,
    read_json,
    reconcile,
    remove_files,
    state_dir,
    write_json,
)  # fmt: skip

HERE = Path(__file__).resolve().parent
RUN = Flags(
    "a/attach add-host annotation blkio-weight blkio-weight-device cap-add cap-drop "
    "cgroup-parent cgroupns cidfile cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period "
    "cpu-rt-runtime c/cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device "
    "device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops dns "
    "dns-option dns-opt dns-search domainname entrypoint e/env env-file expose gpus group-add "
    "health-cmd health-interval health-retries health-start-interval health-start-period "
    "health-timeout h/hostname ip ip6 ipc isolation kernel-memory l/label label-file link "
    "link-local-ip log-driver log-opt mac-address m/memory memory-reservation memory-swap "
    "memory-swappiness mount name net/network net-alias/network-alias oom-score-adj pid "
    "pids-limit platform p/publish pull restart runtime security-opt shm-size stop-signal "
    "stop-timeout storage-opt sysctl tmpfs ulimit u/user userns uts v/volume volume-driver "
    "volumes-from w/workdir",
    "d/detach disable-content-trust init i/interactive no-healthcheck oom-kill-disable "
    "privileged P/publish-all q/quiet read-only rm sig-proxy t/tty use-api-socket",
    interspersed=False,
)
LOGS = Flags("n/tail since until", "details f/follow t/timestamps")
STOP = Flags("t/time/timeout s/signal")
KILL = Flags("s/signal")
RM = Flags("", "f/force l/link v/volumes")
EXEC = Flags("detach-keys e/env env-file u/user w/workdir", "d/detach i/interactive privileged "
             "t/tty", interspersed=False)
START = Flags("detach-keys", "a/attach i/interactive")


# ---------------------------------------------------------------- run / start
def parse_ports(specs: list[str]) -> list[dict]:
    ports = []
    for spec in specs:
        spec, _, proto = spec.partition("/")
        parts = spec.rsplit(":", 2)
        ip = parts[0] if len(parts) == 3 else ""
        host = parts[-2] if len(parts) >= 2 else parts[-1]
        ports.append({"host_ip": ip, "host": host, "container": parts[-1], "proto": proto or "tcp"})
    return ports


def parse_env(items: list[str], files: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for path in files:
        for line in Path(path).read_text().splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                items = [line.strip(), *items]
    for item in items:
        k, eq, v = item.partition("=")
        if eq:
            env[k] = v
        elif k in os.environ:
            env[k] = os.environ[k]
    return env


def random_name() -> str:
    left = ["eager", "brave", "quirky", "sleepy", "vibrant", "zen", "nifty", "jolly"]
    right = ["turing", "hopper", "lovelace", "curie", "noether", "knuth", "ritchie", "shannon"]
    return f"{random.choice(left)}_{random.choice(right)}"


def spawn(rec: dict) -> None:
    """Start the container's process (detached, own session) and mark it running."""
    paths = container_paths(rec["name"])
    paths["exit"].unlink(missing_ok=True)
    env = {**os.environ, **rec["env"], "STANDIN_CONTAINER": rec["name"]}
    with open(paths["log"], "ab") as log:
        p = subprocess.Popen(
            [sys.executable, str(HERE / "container_main.py"), rec["name"]],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True, env=env, cwd=str(state_dir()),
        )  # fmt: skip
    now = time.time()
    rec.update(pid=p.pid, pid_start=proc_start_time(p.pid), status="running", started_ts=now,
               started=iso(now), finished_ts=None, finished=None, exit_code=0)
    write_json(paths["json"], rec)


def cmd_run(args: list[str]) -> int:
    opts, pos = RUN.parse(args)
    need_args("run", pos, 1)
    ref, cmd = pos[0], pos[1:]
    iid = image_id(ref)
    if iid is None:
        repo = normalize_ref(ref).rsplit(":", 1)[0]
        raise DockerError(
            f"Unable to find image '{normalize_ref(ref)}' locally\ndocker: Error response from "
            f"daemon: pull access denied for {repo}, repository does not exist or may require "
            "'docker login': denied: requested access to the resource is denied\n\n"
            "Run 'docker run --help' for more information", 125)
    name = (opts.get("name") or [random_name()])[-1]
    if not re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9_.-]*", name):
        raise DockerError(f"docker: Error response from daemon: Invalid container name ({name}),"
                          " only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed.", 125)
    labels = dict(item.partition("=")[::2] for item in opts.get("label", []))
    entry = opts.get("entrypoint")
    now = time.time()
    rec = {
        "id": os.urandom(32).hex(), "name": name, "image": ref, "image_id": iid,
        "labels": labels, "env": parse_env(opts.get("env", []), opts.get("env-file", [])),
        "cmd": cmd, "entrypoint": [entry[-1]] if entry and entry[-1] else None,
        "ports": parse_ports(opts.get("publish", [])), "volumes": opts.get("volume", []),
        "network": (opts.get("network") or [""])[-1], "ipc": (opts.get("ipc") or [""])[-1],
        "gpus": (opts.get("gpus") or [""])[-1], "shm_size": (opts.get("shm-size") or [None])[-1],
        "restart": (opts.get("restart") or ["no"])[-1], "auto_remove": bool(opts.get("rm")),
        "created": iso(now), "created_ts": now, "started": None, "started_ts": None,
        "finished": None, "finished_ts": None, "status": "created",
        "exit_code": 0, "restart_count": 0, "pid": 0, "pid_start": None,
    }
    path = container_paths(name)["json"]
    existing = find(name)
    try:
        if existing is not None:
            raise FileExistsError
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
    except FileExistsError:
        other = existing or read_json(path, {}) or {}
        raise DockerError(
            f'docker: Error response from daemon: Conflict. The container name "/{name}" is '
            f'already in use by container "{other.get("id", "")}". You have to remove (or '
            "rename) that container to be able to reuse that name.\n\n"
            "Run 'docker run --help' for more information", 125) from None
    write_json(path, rec)
    spawn(rec)
    if opts.get("detach"):
        print(rec["id"])
        return 0
    stream_log(rec, None, follow=True, timestamps=False)
    return wait_exit(rec)


def wait_exit(rec: dict) -> int:
    paths = container_paths(rec["name"])
    while True:
        ex = read_json(paths["exit"])
        if ex is not None or not proc_alive(rec):
            code = ex["code"] if ex else 137
            if rec.get("auto_remove"):
                remove_files(rec["name"])
            return code
        time.sleep(0.05)


def cmd_start(args: list[str]) -> int:
    _opts, pos = START.parse(args)
    need_args("start", pos, 1)
    rc = 0
    for name in pos:
        try:
            rec = must_find(name)
        except DockerError as e:
            print(e, file=sys.stderr)
            rc = 1
            continue
        if rec["status"] != "running":
            spawn(rec)
        print(name)
    return rc


# ---------------------------------------------------------------- logs
def tail_offset(f, n: int) -> int:
    """Offset where the last n lines of the file start."""
    end = f.seek(0, os.SEEK_END)
    if n <= 0:
        return end
    blocks: list[bytes] = []
    pos, count = end, 0
    while pos > 0:
        step = min(1 << 16, pos)
        pos -= step
        f.seek(pos)
        block = f.read(step)
        count += block.count(b"\n")
        blocks.insert(0, block)
        data = b"".join(blocks) if count > n else b""
        body = data[:-1] if data.endswith(b"\n") else data
        if body.count(b"\n") >= n:
            idx = len(body)
            for _ in range(n):
                idx = body.rindex(b"\n", 0, idx)
            return pos + idx + 1
    return 0


def stream_log(rec: dict, tail: int | None, follow: bool, timestamps: bool) -> None:
    for sig in (signal.SIGPIPE, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)  # die at once when the SSH channel goes away
    try:
        f = open(container_paths(rec["name"])["log"], "rb")  # noqa: SIM115
    except FileNotFoundError:
        return
    out = sys.stdout.buffer
    f.seek(tail_offset(f, tail) if tail is not None else 0)
    poller = select.poll()
    with contextlib.suppress(OSError, ValueError):
        poller.register(out.fileno(), 0)  # only POLLERR/POLLHUP: reader went away
    partial = b""
    next_check = 0.0
    while True:
        chunk = f.read(1 << 20)
        if chunk:
            if timestamps:
                lines = (partial + chunk).split(b"\n")
                partial = lines.pop()
                ts = iso(time.time()).encode() + b" "
                chunk = b"".join(ts + line + b"\n" for line in lines)
            out.write(chunk)
            out.flush()
            continue
        if not follow:
            break
        if os.fstat(f.fileno()).st_size < f.tell():  # truncated (log rotation)
            f.seek(0)
            continue
        now = time.monotonic()
        if now >= next_check:
            next_check = now + 0.2
            cur = read_json(container_paths(rec["name"])["json"])
            ex = read_json(container_paths(rec["name"])["exit"])
            if ex is not None or cur is None or cur.get("id") != rec["id"] or not proc_alive(cur):
                rest = f.read()
                out.write(rest)
                break
        if poller.poll(20):
            os._exit(0)
    if partial:
        out.write(partial + b"\n")
    out.flush()


def cmd_logs(args: list[str]) -> int:
    opts, pos = LOGS.parse(args)
    need_args("logs", pos, 1, exact=True)
    rec = must_find(pos[0])
    tail = (opts.get("tail") or ["all"])[-1]
    n = int(tail) if tail.lstrip("-").isdigit() and int(tail) >= 0 else None  # else "all"
    stream_log(rec, n, follow=bool(opts.get("follow")), timestamps=bool(opts.get("timestamps")))
    return 0


# ---------------------------------------------------------------- stop / kill / rm
def signum(name: str) -> int:
    name = name.upper()
    if name.isdigit():
        return int(name)
    return int(getattr(signal, name if name.startswith("SIG") else "SIG" + name))


def terminate(rec: dict, sig: int, grace: float, escalate: bool = True) -> None:
    """Signal the container's process group, wait up to grace seconds, then SIGKILL."""
    if rec["status"] == "running" and proc_alive(rec):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(rec["pid"], signal.SIGCONT)
            os.killpg(rec["pid"], sig)
        code = 128 + sig
        deadline = time.monotonic() + grace
        while proc_alive(rec) and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc_alive(rec) and escalate:
            code = 137
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(rec["pid"], signal.SIGKILL)
            deadline = time.monotonic() + 5
            while proc_alive(rec) and time.monotonic() < deadline:
                time.sleep(0.02)
        exit_path = container_paths(rec["name"])["exit"]
        if not proc_alive(rec) and read_json(exit_path) is None:
            write_json(exit_path, {"code": code, "finished": time.time()})
    reconcile(rec)


def for_each(pos: list[str], action) -> int:
    rc = 0
    for name in pos:
        try:
            action(must_find(name))
            print(name)
        except DockerError as e:
            print(e, file=sys.stderr)
            rc = 1
    return rc


def cmd_stop(args: list[str]) -> int:
    opts, pos = STOP.parse(args)
    need_args("stop", pos, 1)
    grace = float((opts.get("timeout") or ["10"])[-1])
    sig = signum((opts.get("signal") or ["TERM"])[-1])
    return for_each(pos, lambda rec: terminate(rec, sig, max(grace, 0)))


def cmd_kill(args: list[str]) -> int:
    opts, pos = KILL.parse(args)
    need_args("kill", pos, 1)
    sig = signum((opts.get("signal") or ["KILL"])[-1])

    def act(rec: dict) -> None:
        if rec["status"] != "running":
            raise DockerError(f"Error response from daemon: cannot kill container: {rec['name']}"
                              f": container {rec['id']} is not running")
        terminate(rec, sig, 2, escalate=False)

    return for_each(pos, act)


def cmd_restart(args: list[str]) -> int:
    opts, pos = STOP.parse(args)
    need_args("restart", pos, 1)
    grace = float((opts.get("timeout") or ["10"])[-1])

    def act(rec: dict) -> None:
        terminate(rec, signal.SIGTERM, grace)
        spawn(rec)

    return for_each(pos, act)


def cmd_rm(args: list[str]) -> int:
    opts, pos = RM.parse(args)
    need_args("rm", pos, 1)

    def act(rec: dict) -> None:
        if rec["status"] == "running":
            if not opts.get("force"):
                raise DockerError(
                    f'Error response from daemon: cannot remove container "/{rec["name"]}": '
                    "container is running: stop the container before removing or force remove")
            terminate(rec, signal.SIGKILL, 0)
        remove_files(rec["name"])

    return for_each(pos, act)


# ---------------------------------------------------------------- exec
def cmd_exec(args: list[str]) -> int:
    opts, pos = EXEC.parse(args)
    need_args("exec", pos, 2)
    rec = must_find(pos[0])
    if rec["status"] != "running":
        raise DockerError(f"Error response from daemon: container {rec['id']} is not running")
    env = {**os.environ, **rec["env"], **parse_env(opts.get("env", []), opts.get("env-file", []))}
    cwd = (opts.get("workdir") or [os.environ.get("HOME", "/")])[-1]
    try:
        if opts.get("detach"):
            subprocess.Popen(pos[1:], env=env, cwd=cwd, start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
            return 0
        return subprocess.run(pos[1:], env=env, cwd=cwd, check=False).returncode
    except (FileNotFoundError, PermissionError):
        print("OCI runtime exec failed: exec failed: unable to start container process: exec: "
              f'"{pos[1]}": executable file not found in $PATH: unknown', file=sys.stderr)
        return 127


COMMANDS = {
    "run": cmd_run, "container run": cmd_run, "start": cmd_start, "container start": cmd_start,
    "ps": cmd_ps, "container ls": cmd_ps, "container ps": cmd_ps, "container list": cmd_ps,
    "logs": cmd_logs, "container logs": cmd_logs,
    "stop": cmd_stop, "container stop": cmd_stop, "kill": cmd_kill, "container kill": cmd_kill,
    "restart": cmd_restart, "container restart": cmd_restart,
    "rm": cmd_rm, "container rm": cmd_rm, "exec": cmd_exec, "container exec": cmd_exec,
    "inspect": cmd_inspect, "container inspect": lambda a: cmd_inspect(a, "container"),
    "image inspect": lambda a: cmd_inspect(a, "image"),
    "images": cmd_images, "image ls": cmd_images, "image list": cmd_images,
    "pull": cmd_pull, "image pull": cmd_pull, "image rm": cmd_image_rm, "rmi": cmd_image_rm,
    "info": cmd_info, "system info": cmd_info, "version": cmd_version,
}
