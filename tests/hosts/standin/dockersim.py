"""State and formatting shared by the docker stand-in and its container processes.

Stdlib only: this file is copied into each test cluster's bin dir next to `docker`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import time
from pathlib import Path

SERVER_VERSION = "28.2.2"


class DockerError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- paths and json io
def state_dir() -> Path:
    return Path(os.environ.get("SPARKTUI_NODE_STATE") or os.path.expanduser("~/.standin-docker"))


def cdir() -> Path:
    d = state_dir() / "containers"
    d.mkdir(parents=True, exist_ok=True)
    return d


def read_json(path: Path, default=None):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def write_json(path: Path, data) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def append_jsonl(name: str, record: dict) -> None:
    line = (json.dumps(record) + "\n").encode()
    fd = os.open(state_dir() / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


# ---------------------------------------------------------------- processes
def proc_start_time(pid: int) -> str | None:
    """/proc starttime of pid, or None if it is gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def proc_alive(rec: dict) -> bool:
    pid = rec.get("pid")
    return bool(pid) and proc_start_time(pid) == rec.get("pid_start")


# ---------------------------------------------------------------- images
def normalize_ref(ref: str) -> str:
    last = ref.rsplit("/", 1)[-1]
    return ref if ("@" in ref or ":" in last) else ref + ":latest"


def image_id(ref: str, explicit_only: bool = False) -> str | None:
    ref = normalize_ref(ref)
    images = read_json(state_dir() / "images.json", {}) or {}
    if ref in images:
        return images[ref]  # None is a tombstone (removed in permissive mode)
    if not explicit_only and (state_dir() / "images-any").exists():
        return "sha256:" + hashlib.sha256(ref.encode()).hexdigest()
    return None


def set_image(ref: str, value: str | None) -> None:
    path = state_dir() / "images.json"
    images = read_json(path, {}) or {}
    images[normalize_ref(ref)] = value
    if value is None and not (state_dir() / "images-any").exists():
        images.pop(normalize_ref(ref))
    write_json(path, images)


# ---------------------------------------------------------------- containers
def container_paths(name: str) -> dict[str, Path]:
    d = cdir()
    return {k: d / f"{name}.{k}" for k in ("json", "log", "exit")}


def reconcile(rec: dict) -> dict | None:
    """Bring a running record up to date with its process; None if auto-removed."""
    if rec.get("status") == "running":
        paths = container_paths(rec["name"])
        ex = read_json(paths["exit"])
        if ex is None and proc_alive(rec):
            return rec
        if ex is None:  # killed without a chance to report (SIGKILL)
            ex = {"code": 137, "finished": time.time()}
            with contextlib.suppress(OSError):
                write_json(paths["exit"], ex)
        rec.update(status="exited", exit_code=ex["code"], finished_ts=ex["finished"],
                   finished=iso(ex["finished"]))
        with contextlib.suppress(OSError):
            write_json(paths["json"], rec)
    if rec.get("status") == "exited" and rec.get("auto_remove"):
        remove_files(rec["name"])
        return None
    return rec


def remove_files(name: str) -> None:
    for p in container_paths(name).values():
        p.unlink(missing_ok=True)


def all_containers() -> list[dict]:
    out = []
    for p in cdir().glob("*.json"):
        rec = read_json(p)
        if isinstance(rec, dict) and rec.get("id"):
            rec = reconcile(rec)
            if rec is not None:
                out.append(rec)
    out.sort(key=lambda r: r.get("created_ts", 0), reverse=True)
    return out


def find(ref: str) -> dict | None:
    """Look a container up by name, full id or unique id prefix (like docker)."""
    ref = ref.lstrip("/")
    rec = read_json(cdir() / f"{ref}.json") if re.fullmatch(r"[\w.-]+", ref) else None
    if isinstance(rec, dict) and rec.get("id"):
        return reconcile(rec)
    matches = [r for r in all_containers() if r["id"].startswith(ref)] if ref else []
    return matches[0] if len(matches) == 1 else None


def must_find(ref: str) -> dict:
    rec = find(ref)
    if rec is None:
        raise DockerError(f"Error response from daemon: No such container: {ref}")
    return rec


# ---------------------------------------------------------------- time formatting
def iso(t: float | None) -> str:
    if not t:
        return "0001-01-01T00:00:00Z"
    d = dt.datetime.fromtimestamp(t, dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond:06d}000Z"


def human_duration(seconds: float) -> str:
    """github.com/docker/go-units HumanDuration."""
    s = int(seconds)
    if s < 1:
        return "Less than a second"
    if s == 1:
        return "1 second"
    if s < 60:
        return f"{s} seconds"
    m = int(seconds / 60)
    if m == 1:
        return "About a minute"
    if m < 60:
        return f"{m} minutes"
    h = int(seconds / 3600 + 0.5)
    if h == 1:
        return "About an hour"
    if h < 48:
        return f"{h} hours"
    if h < 24 * 7 * 2:
        return f"{h // 24} days"
    if h < 24 * 30 * 2:
        return f"{h // 24 // 7} weeks"
    if h < 24 * 365 * 2:
        return f"{h // 24 // 30} months"
    return f"{h // 24 // 365} years"


def status_text(rec: dict) -> str:
    now = time.time()
    if rec["status"] == "running":
        return "Up " + human_duration(now - rec["started_ts"])
    if rec["status"] == "exited":
        ago = human_duration(now - (rec.get("finished_ts") or now))
        return f"Exited ({rec['exit_code']}) {ago} ago"
    return "Created"


def ports_text(rec: dict) -> str:
    return ", ".join(
        f"{p['host_ip'] or '0.0.0.0'}:{p['host']}->{p['container']}/{p['proto']}"
        for p in rec.get("ports", [])
    )


def command_text(rec: dict, trunc: bool) -> str:
    cmd = " ".join([*(rec.get("entrypoint") or []), *rec.get("cmd", [])])
    if trunc and len(cmd) > 20:
        cmd = cmd[:19] + "…"
    return f'"{cmd}"'


def ps_row(rec: dict, trunc: bool = True) -> dict:
    created = dt.datetime.fromtimestamp(rec["created_ts"], dt.UTC)
    labels = rec.get("labels", {})
    return {
        "Command": command_text(rec, trunc),
        "CreatedAt": created.strftime("%Y-%m-%d %H:%M:%S +0000 UTC"),
        "ID": rec["id"][:12] if trunc else rec["id"],
        "Image": rec["image"],
        "Labels": ",".join(f"{k}={v}" for k, v in sorted(labels.items())),
        "LocalVolumes": "0",
        "Mounts": ",".join(v.split(":")[0] for v in rec.get("volumes", [])),
        "Names": rec["name"],
        "Networks": rec.get("network") or "bridge",
        "Ports": ports_text(rec),
        "RunningFor": human_duration(time.time() - rec["created_ts"]) + " ago",
        "Size": "0B",
        "State": rec["status"],
        "Status": status_text(rec),
    }


def inspect_obj(rec: dict) -> dict:
    running = rec["status"] == "running"
    return {
        "Id": rec["id"],
        "Created": rec["created"],
        "Path": ([*(rec.get("entrypoint") or []), *rec.get("cmd", [])] or [""])[0],
        "Args": [*(rec.get("entrypoint") or []), *rec.get("cmd", [])][1:],
        "State": {
            "Status": rec["status"],
            "Running": running,
            "Paused": False,
            "Restarting": False,
            "OOMKilled": False,
            "Dead": False,
            "Pid": rec.get("pid", 0) if running else 0,
            "ExitCode": rec.get("exit_code", 0),
            "Error": "",
            "StartedAt": rec.get("started") or iso(None),
            "FinishedAt": (None if running else rec.get("finished")) or iso(None),
        },
        "Image": rec["image_id"],
        "LogPath": str(container_paths(rec["name"])["log"]),
        "Name": "/" + rec["name"],
        "RestartCount": rec.get("restart_count", 0),
        "HostConfig": {
            "NetworkMode": rec.get("network") or "bridge",
            "IpcMode": rec.get("ipc") or "private",
            "ShmSize": rec.get("shm_size") or 67108864,
            "AutoRemove": rec.get("auto_remove", False),
            "RestartPolicy": {"Name": rec.get("restart") or "no", "MaximumRetryCount": 0},
            "PortBindings": {
                f"{p['container']}/{p['proto']}": [{"HostIp": p["host_ip"], "HostPort": p["host"]}]
                for p in rec.get("ports", [])
            },
        },
        "Mounts": [
            {"Type": "bind", "Source": v.split(":")[0], "Destination": v.split(":")[1]}
            for v in rec.get("volumes", [])
            if ":" in v
        ],
        "Config": {
            "Hostname": rec["id"][:12],
            "Env": [f"{k}={v}" for k, v in rec.get("env", {}).items()],
            "Cmd": rec.get("cmd") or None,
            "Image": rec["image"],
            "Entrypoint": rec.get("entrypoint"),
            "Labels": rec.get("labels", {}),
        },
        "NetworkSettings": {
            "Ports": {f"{p['container']}/{p['proto']}": None for p in rec.get("ports", [])}
        },
    }


# ---------------------------------------------------------------- Go templates (subset)
_TOKEN = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)
_ARGS = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\S+')


def go_str(v) -> str:
    if v is None:
        return "<no value>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{go_str(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(go_str(x) for x in v) + "]"
    return str(v)


def go_json(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _value(expr: str, obj):
    if expr.startswith('"') or expr.startswith("`"):
        return json.loads(expr) if expr.startswith('"') else expr[1:-1]
    if expr == ".":
        return obj
    if not expr.startswith("."):
        raise DockerError(f'template: :1: function "{expr}" not defined', 1)
    cur = obj
    for part in expr[1:].split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, dict):
            return None
        else:
            raise DockerError(f"template: :1: can't evaluate field {part}", 1)
    return cur


def _eval(expr: str, obj) -> str:
    args = _ARGS.findall(expr)
    if not args:
        return ""
    fn, rest = args[0], args[1:]
    if fn == "json" and len(rest) == 1:
        return go_json(_value(rest[0], obj))
    if fn == "index" and len(rest) >= 2:
        cur = _value(rest[0], obj)
        for key in rest[1:]:
            cur = (cur or {}).get(_value(key, obj)) if isinstance(cur, dict) else None
        return go_str(cur)
    if fn == ".Label" and len(rest) == 1 and isinstance(obj, dict):
        pairs = (p.partition("=") for p in str(obj.get("Labels") or "").split(",") if p)
        return {k: v for k, _, v in pairs}.get(_value(rest[0], obj), "")
    if fn == "join" and len(rest) == 2:
        return str(_value(rest[1], obj)).join(go_str(x) for x in _value(rest[0], obj) or [])
    if fn in ("upper", "lower", "title") and len(rest) == 1:
        return getattr(go_str(_value(rest[0], obj)), fn)()
    if fn in ("println", "print") and rest:
        return " ".join(go_str(_value(a, obj)) for a in rest) + ("\n" if fn == "println" else "")
    if len(args) == 1:
        return go_str(_value(fn, obj))
    raise DockerError(f"standin docker: unsupported template expression {{{{{expr}}}}}", 1)


def render(template: str, obj) -> str:
    """Render a Go text/template subset: {{.A.B}}, {{json .X}}, {{index .M "k"}},
    {{.Label "k"}}, {{join .L ","}}, {{upper ..}}, plain text, {{- -}} trimming."""
    template = template.replace("\\t", "\t").replace("\\n", "\n")
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(template):
        text = template[pos : m.start()]
        if m.group(1):
            text = text.rstrip()
        out.append(text)
        out.append(_eval(m.group(2), obj))
        pos = m.end()
        if m.group(3):
            while pos < len(template) and template[pos].isspace():
                pos += 1
    out.append(template[pos:])
    return "".join(out)


# ---------------------------------------------------------------- flag parsing (pflag-like)
class Flags:
    """Spec like Flags("e/env p/publish name", "d/detach rm") (valued, boolean)."""

    def __init__(self, valued: str = "", boolean: str = "", interspersed: bool = True) -> None:
        self.long: dict[str, tuple[str, bool]] = {}
        self.short: dict[str, tuple[str, bool]] = {}
        for spec, takes in ((valued, True), (boolean, False)):
            for item in spec.split():
                names = item.split("/")
                key = names[-1]
                for n in names:
                    (self.short if len(n) == 1 else self.long)[n] = (key, takes)
        self.interspersed = interspersed

    def parse(self, args: list[str]) -> tuple[dict, list[str]]:
        opts: dict = {}
        pos: list[str] = []

        def put(key: str, takes: bool, value) -> None:
            if takes:
                opts.setdefault(key, []).append(value)
            else:
                opts[key] = value not in ("false", "0", False)

        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                pos += args[i + 1 :]
                break
            if a.startswith("--"):
                name, eq, val = a[2:].partition("=")
                if name not in self.long:
                    raise DockerError(f"unknown flag: --{name}", 125)
                key, takes = self.long[name]
                if takes and not eq:
                    i += 1
                    if i >= len(args):
                        raise DockerError(f"flag needs an argument: --{name}", 125)
                    val = args[i]
                put(key, takes, val if (takes or eq) else True)
            elif a.startswith("-") and a != "-":
                j = 1
                while j < len(a):
                    c = a[j]
                    if c not in self.short:
                        raise DockerError(f"unknown shorthand flag: '{c}' in {a}", 125)
                    key, takes = self.short[c]
                    if takes:
                        val = a[j + 1 :].removeprefix("=")
                        if not val:
                            i += 1
                            if i >= len(args):
                                raise DockerError(f"flag needs an argument: '{c}' in {a}", 125)
                            val = args[i]
                        put(key, True, val)
                        break
                    put(key, False, True)
                    j += 1
            else:
                if not self.interspersed:
                    pos += args[i:]
                    break
                pos.append(a)
            i += 1
        return opts, pos
