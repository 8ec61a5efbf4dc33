"""The docker stand-in's query subcommands: ps, inspect, images, pull, info, version."""

from __future__ import annotations

import json
import os
import re
import sys

from dockersim import (
    SERVER_VERSION,
    DockerError,
    Flags,
    all_containers,
    find,
    image_id,
    inspect_obj,
    iso,
    normalize_ref,
    ps_row,
    read_json,
    render,
    set_image,
    state_dir,
)  # fmt: skip

PS = Flags("f/filter format n/last", "a/all l/latest no-trunc q/quiet s/size")
INSPECT = Flags("f/format type", "s/size")
FORMAT_ONLY = Flags("f/format")
IMAGES = Flags("f/filter format", "a/all digests no-trunc q/quiet")
PULL = Flags("platform", "a/all-tags disable-content-trust q/quiet")
IMAGE_RM = Flags("", "f/force no-prune")
PS_HEADERS = {"ID": "CONTAINER ID", "RunningFor": "CREATED", "CreatedAt": "CREATED AT"}
IMAGE_HEADERS = {"ID": "IMAGE ID", "CreatedSince": "CREATED"}


def need_args(cmd: str, pos: list, n: int, exact: bool = False) -> None:
    if len(pos) < n or (exact and len(pos) != n):
        what = "exactly" if exact else "at least"
        s = "" if n == 1 else "s"
        raise DockerError(f"docker: 'docker {cmd}' requires {what} {n} argument{s}\n\n"
                          f"See 'docker {cmd} --help' for more information", 1)


def tabwrite(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    out = []
    for r in rows:
        cells = [c.ljust(max(widths[i] + 3, 10)) for i, c in enumerate(r[:-1])]
        out.append("".join(cells) + r[-1])
    return "\n".join(out) + "\n"


def print_rows(objs: list[dict], fmt: str | None, default: str, headers: dict) -> None:
    fmt = "{{json .}}" if fmt == "json" else (fmt or default)
    if fmt.startswith("table"):
        body = fmt[5:].strip()
        exprs = re.findall(r"\{\{-?\s*(.*?)\s*-?\}\}", body)
        names = [e.split()[0].lstrip(".") or "." for e in exprs]
        header = [headers.get(f, re.sub(r"(?<!^)([A-Z])", r" \1", f).upper()) for f in names]
        rows = [render(body, o).split("\t") for o in objs]
        sys.stdout.write(tabwrite([header, *rows]))
        return
    for o in objs:
        sys.stdout.write(render(fmt, o) + "\n")


# ---------------------------------------------------------------- ps / inspect / images
def matches(rec: dict, filters: list[str]) -> bool:
    by_key: dict[str, list[str]] = {}
    for f in filters:
        k, _, v = f.partition("=")
        if k not in ("label", "name", "status", "id", "ancestor", "exited"):
            raise DockerError(f"Error response from daemon: invalid filter '{k}'")
        by_key.setdefault(k, []).append(v)
    labels = rec.get("labels", {})
    for v in by_key.get("label", []):
        k, eq, val = v.partition("=")
        if k not in labels or (eq and labels[k] != val):
            return False
    checks = {
        "name": lambda v: re.search(v, rec["name"]) is not None,
        "status": lambda v: rec["status"] == v,
        "id": lambda v: rec["id"].startswith(v),
        "ancestor": lambda v: normalize_ref(v) == normalize_ref(rec["image"]),
        "exited": lambda v: rec["status"] == "exited" and str(rec["exit_code"]) == v,
    }
    return all(any(checks[k](v) for v in vals) for k, vals in by_key.items() if k != "label")


def cmd_ps(args: list[str]) -> int:
    opts, _pos = PS.parse(args)
    filters = opts.get("filter", [])
    show_all = opts.get("all") or any(f.startswith(("status=", "exited=")) for f in filters)
    recs = [r for r in all_containers() if (show_all or r["status"] == "running")]
    recs = [r for r in recs if matches(r, filters)]
    if opts.get("latest"):
        recs = recs[:1]
    trunc = not opts.get("no-trunc")
    if opts.get("quiet"):
        for r in recs:
            print(r["id"][:12] if trunc else r["id"])
        return 0
    rows = [ps_row(r, trunc) for r in recs]
    default = ("table {{.ID}}\t{{.Image}}\t{{.Command}}\t{{.RunningFor}}\t{{.Status}}\t"
               "{{.Ports}}\t{{.Names}}")
    print_rows(rows, (opts.get("format") or [None])[-1], default, PS_HEADERS)
    return 0


def image_obj(ref: str, iid: str) -> dict:
    return {"Id": iid, "RepoTags": [normalize_ref(ref)], "RepoDigests": [],
            "Created": iso(1700000000.0), "Architecture": "arm64", "Os": "linux",
            "Size": 21474836480, "Config": {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin"],
                                              "Labels": None}}


def emit_objects(objs: list[dict], fmt: str | None) -> None:
    if fmt:
        for o in objs:
            sys.stdout.write(render("{{json .}}" if fmt == "json" else fmt, o) + "\n")
    else:
        sys.stdout.write(json.dumps(objs, indent=4) + "\n")


def cmd_inspect(args: list[str], kind: str = "") -> int:
    opts, pos = INSPECT.parse(args)
    need_args(f"{kind} inspect".strip(), pos, 1)
    kind = kind or (opts.get("type") or [""])[-1]
    objs, errors = [], []
    for name in pos:
        rec = find(name) if kind != "image" else None
        iid = image_id(name, explicit_only=kind != "image") if kind != "container" else None
        if rec is not None:
            objs.append(inspect_obj(rec))
        elif iid:
            objs.append(image_obj(name, iid))
        elif kind == "image":
            errors.append(f"Error response from daemon: No such image: {name}")
        else:
            errors.append(f"Error: No such {kind or 'object'}: {name}")
    fmt = (opts.get("format") or [None])[-1]
    if objs or not fmt:
        emit_objects(objs, fmt)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


def cmd_images(args: list[str]) -> int:
    opts, _pos = IMAGES.parse(args)
    images = read_json(state_dir() / "images.json", {}) or {}
    rows = []
    for ref, iid in sorted(images.items()):
        if iid:
            repo, _, tag = ref.rpartition(":")
            rows.append({"Repository": repo, "Tag": tag, "ID": iid.split(":")[-1][:12],
                         "CreatedSince": "2 weeks ago", "Size": "21.5GB"})
    if opts.get("quiet"):
        for r in rows:
            print(r["ID"])
        return 0
    default = "table {{.Repository}}\t{{.Tag}}\t{{.ID}}\t{{.CreatedSince}}\t{{.Size}}"
    print_rows(rows, (opts.get("format") or [None])[-1], default, IMAGE_HEADERS)
    return 0


def cmd_pull(args: list[str]) -> int:
    opts, pos = PULL.parse(args)
    need_args("pull", pos, 1, exact=True)
    ref = normalize_ref(pos[0])
    iid = image_id(ref, explicit_only=True) or "sha256:" + os.urandom(32).hex()
    set_image(ref, iid)
    if not opts.get("quiet"):
        print(f"{ref.rsplit(':', 1)[1]}: Pulling from {ref.rsplit(':', 1)[0]}")
        print(f"Digest: sha256:{os.urandom(32).hex()}")
        print(f"Status: Downloaded newer image for {ref}")
    print(ref)
    return 0


def cmd_image_rm(args: list[str]) -> int:
    _opts, pos = IMAGE_RM.parse(args)
    need_args("image rm", pos, 1)
    rc = 0
    for ref in pos:
        if image_id(ref) is None:
            print(f"Error response from daemon: No such image: {ref}", file=sys.stderr)
            rc = 1
            continue
        set_image(ref, None)
        print(f"Untagged: {normalize_ref(ref)}")
    return rc


# ---------------------------------------------------------------- info / version
def info_obj() -> dict:
    recs = all_containers()
    running = sum(r["status"] == "running" for r in recs)
    return {
        "ID": "STANDIN", "Containers": len(recs), "ContainersRunning": running,
        "ContainersPaused": 0, "ContainersStopped": len(recs) - running,
        "Images": len(read_json(state_dir() / "images.json", {}) or {}),
        "Driver": "overlay2", "ServerVersion": SERVER_VERSION, "OSType": "linux",
        "OperatingSystem": "Ubuntu 24.04.3 LTS", "KernelVersion": "6.11.0-1016-nvidia",
        "Architecture": "aarch64", "NCPU": 20, "MemTotal": 128_000_000_000,
        "Name": os.environ.get("SPARKTUI_NODE_NAME", "spark"), "DefaultRuntime": "runc",
        "Runtimes": {"nvidia": {"path": "nvidia-container-runtime"}, "runc": {"path": "runc"}},
        "DockerRootDir": "/var/lib/docker",
    }


def cmd_info(args: list[str]) -> int:
    opts, _pos = FORMAT_ONLY.parse(args)
    info = info_obj()
    fmt = (opts.get("format") or [None])[-1]
    if fmt:
        sys.stdout.write(render("{{json .}}" if fmt == "json" else fmt, info) + "\n")
        return 0
    print("Client:\n Version:    28.2.2\n Context:    default\n\nServer:")
    for key in ("Containers", "ContainersRunning", "ContainersPaused", "ContainersStopped",
                "Images", "ServerVersion", "Driver", "DefaultRuntime", "KernelVersion",
                "OperatingSystem", "OSType", "Architecture", "NCPU", "MemTotal", "Name",
                "DockerRootDir"):
        print(f" {key}: {info[key]}")
    print(" Runtimes: io.containerd.runc.v2 nvidia runc")
    return 0


def cmd_version(args: list[str]) -> int:
    opts, _pos = FORMAT_ONLY.parse(args)
    ver = {"Client": {"Version": SERVER_VERSION, "ApiVersion": "1.50", "Os": "linux",
                      "Arch": "arm64", "GitCommit": "e6534b4"},
           "Server": {"Version": SERVER_VERSION, "ApiVersion": "1.50", "Os": "linux",
                      "Arch": "arm64", "MinAPIVersion": "1.24"},
           "ServerVersion": SERVER_VERSION}
    fmt = (opts.get("format") or [None])[-1]
    if fmt:
        sys.stdout.write(render("{{json .}}" if fmt == "json" else fmt, ver) + "\n")
        return 0
    for part in ("Client", "Server"):
        print(f"{part}:")
        for k, v in ver[part].items():
            print(f" {k + ':':<20}{v}")
    return 0
