"""doctor: per-node checks with a pass/warn/fail line and a hint each.

Each node answers one gathering script (one round trip); the verdicts are
computed here so they are testable without a node.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Sequence

from sparktui.config.models import Cluster, Config, Node
from sparktui.config.rules import is_image
from sparktui.engine.doctor_check import FAIL, PASS, WARN, Check
from sparktui.engine.drivers.docker import DOCKER
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import Workload
from sparktui.engine.telemetry.nodestats import DISK_ABSENT, disk_command, parse_df
from sparktui.engine.workloads.discover import discover
from sparktui.fmt import format_gib, format_ms, format_number
from sparktui.i18n import _
from sparktui.plan.runtime.docker_node import NO_GPU_DRIVER, TOOLKIT_FIX, docker_error, gpus_given

GPUS_OK = "sparktui-gpus-ok"
NO_IMAGE = "sparktui-no-image"
MIN_FREE_GIB = 8.0
MIN_DISK_GIB = 100.0
MAX_SKEW_SECONDS = 1.0


def gather_script(hf_cache: str, ifname: str, images: list[str], fabric_ip: str) -> str:
    parts = [
        f"echo '@@docker'; {DOCKER.version_command()} 2>&1 | head -n 3",
        "echo '@@gpu'; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1"
        " | head -n 4",
        "echo '@@meminfo'; grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo",
        "echo '@@disk'; " + disk_command(hf_cache),
        # A routing lookup, no traffic: "local ..." when the address is this node's own.
        f"echo '@@fabric'; ip route get {shlex.quote(fabric_ip)} 2>&1 | head -n 1",
        "echo '@@clock'; date +%s.%N",
    ]
    if ifname:
        for name in ifname.split(","):
            path = shlex.quote(f"/sys/class/net/{name.strip()}/operstate")
            parts.append(f"echo '@@if {name.strip()}'; cat {path} 2>&1")
    for image in images:
        inspect = DOCKER.runtime.image_id_command(image)
        parts.append(f"echo {shlex.quote('@@image ' + image)}; {inspect} 2>&1")
    # --gpus as serve asks for it, with the first image the node has (a name a node
    # gave, of a running container, only when it reads as an image: never as a flag)
    if tried := [i for i in images if is_image(i)]:
        tries = [f"if {DOCKER.runtime.image_id_command(i)} >/dev/null 2>&1; then "
                 f"{DOCKER.gpu_probe_command(i, 'all')} 2>&1 && echo {GPUS_OK}; "
                 for i in tried]
        parts.append("echo '@@gpus'; " + "el".join(tries) + f"else echo {NO_IMAGE}; fi")
    return "; ".join(parts)


def _sections(output: str) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    current = ""
    for line in output.splitlines():
        if line.startswith("@@"):
            current = line[2:].strip()
            found[current] = []
        elif current:
            found[current].append(line)
    return {k: "\n".join(v).strip() for k, v in found.items()}


def _disk_check(node: str, section: str, hf_cache: str) -> Check:
    """The figure telemetry shows too (nodestats.disk_command); no answer is a warning
    that says so, never 0 GiB free."""
    disk = parse_df(section)
    if disk is None:
        return Check(node, "disk", WARN, _("df gave no figure for {path}").format(
            path=hf_cache), _("check that the node has df and can read {path}").format(
            path=hf_cache))
    free_gib = disk[0] / (1 << 30)
    detail = _("{free} free for the HF cache").format(free=format_gib(free_gib, 0))
    if DISK_ABSENT in section.splitlines():
        detail += " " + _("({path} does not exist yet: the free space where it will be "
                          "created)").format(path=hf_cache)
    return Check(node, "disk", PASS if free_gib >= MIN_DISK_GIB else WARN, detail,
                 "" if free_gib >= MIN_DISK_GIB else _("prune old snapshots: {command}")
                 .format(command="huggingface-cli delete-cache"))


def _gpu_check(node: str, gpu: str) -> Check:
    """nvidia-smi's first line; a failure's hint fits it: a node without nvidia-smi is
    told where it comes from, not to run it."""
    low = gpu.lower()
    if gpu and "failed" not in low and "not found" not in low:
        return Check(node, "gpu", PASS, gpu.splitlines()[0])
    hint = (_("nvidia-smi is not on this node's PATH: install the NVIDIA driver, which "
              "brings it") if "not found" in low else
            _("check the driver with nvidia-smi; reboot after a driver update"))
    return Check(node, "gpu", FAIL, gpu[:120] or _("nvidia-smi gave nothing"), hint)


def _gpus_check(node: str, said: str) -> Check | None:
    """Whether the node's dockerd starts a container with ``--gpus all`` (None: no image
    of those asked for is on the node to try it with)."""
    if said.endswith(GPUS_OK) or gpus_given(said):
        return Check(node, "gpu runtime", PASS, _("docker run --gpus all starts a container"))
    if said == NO_IMAGE:
        return None
    why = docker_error(said)[:120] or _("no answer")
    return Check(node, "gpu runtime", FAIL, why, _(
        "install the NVIDIA Container Toolkit (it brings nvidia-container-runtime-hook), "
        "then restart docker: {command}").format(command=TOOLKIT_FIX) if NO_GPU_DRIVER in why
        else _("check the driver with nvidia-smi; reboot after a driver update"))


def evaluate(node: Node, output: str, sent_at: float, received_at: float,
             ifname: str, hf_cache: str) -> list[Check]:
    s = _sections(output)
    name = node.name
    took = format_ms((received_at - sent_at) * 1000)
    checks = [Check(name, "local", PASS, _("commands run on this machine, without SSH ({ms})")
                    .format(ms=took)) if node.local else Check(name, "ssh", PASS, took)]
    docker = s.get("docker", "")
    checks.append(Check(name, "docker", PASS, _("server {version}").format(version=docker))
                  if docker and docker[0].isdigit() else
                  Check(name, "docker", FAIL, docker[:120] or _("no answer"),
                        _("start the daemon: {command}").format(
                            command="sudo systemctl start docker")))
    checks.append(_gpu_check(name, s.get("gpu", "")))
    if "gpus" in s and (runtime := _gpus_check(name, s["gpus"])) is not None:
        checks.append(runtime)
    mem = {k.rstrip(":"): int(v) for k, v, *_ in
           (line.split() for line in s.get("meminfo", "").splitlines() if line.strip())}
    avail = mem.get("MemAvailable", 0) / 1048576
    swap_used = (mem.get("SwapTotal", 0) - mem.get("SwapFree", 0)) / 1048576
    status = PASS if avail >= MIN_FREE_GIB else WARN
    checks.append(Check(name, "memory", status, _("{available} available, swap used {swap}")
                        .format(available=format_gib(avail), swap=format_gib(swap_used)),
                        "" if status == PASS else
                        _("free unified memory: stop_dgx_services or drop caches")))
    checks.append(_disk_check(name, s.get("disk", ""), hf_cache))
    for iface in [i.strip() for i in ifname.split(",") if i.strip()]:
        state = s.get(f"if {iface}", "")
        ok = state in ("up", "unknown")
        checks.append(Check(name, f"nic {iface}", PASS if ok else FAIL, state or _("missing"),
                            "" if ok else _("bring it up: {command}; check the QSFP cable")
                            .format(command=f"sudo ip link set {iface} up")))
    if node.ib_ip:
        route = s.get("fabric", "")
        if "not found" in route:
            checks.append(Check(name, "fabric ip", WARN, _("cannot check: no `ip` command"),
                                _("install {package}").format(package="iproute2")))
        else:
            ok = route.startswith("local ")
            checks.append(Check(name, "fabric ip", PASS if ok else FAIL,
                                (_("{ip} is this node's") if ok else
                                 _("{ip} is not an address of this node")).format(ip=node.ib_ip),
                                "" if ok else _("fix the netplan for the fabric interface or "
                                                "the ib_ip in config.toml")))
    try:
        remote = float(s.get("clock", "").strip())
        skew = remote - (sent_at + received_at) / 2
        checks.append(Check(name, "clock", PASS if abs(skew) <= MAX_SKEW_SECONDS else WARN,
                            _("skew {seconds} s").format(
                                seconds=("+" if skew >= 0 else "") + format_number(skew, 2, True)),
                            "" if abs(skew) <= MAX_SKEW_SECONDS else
                            _("enable time sync: {command}").format(
                                command="sudo timedatectl set-ntp true")))
    except ValueError:
        checks.append(Check(name, "clock", WARN, _("unreadable")))
    return checks


def image_checks(ids: dict[str, dict[str, str]]) -> list[Check]:
    """ids: image -> node -> image id (or error text). Equal everywhere, or say who differs."""
    checks = []
    for image, per_node in ids.items():
        valid = {n: i for n, i in per_node.items() if i.startswith("sha256:")}
        missing = sorted(set(per_node) - set(valid))
        distinct = set(valid.values())
        if missing:
            checks.append(Check("*", f"image {image}", FAIL, _("missing on {nodes}").format(
                                nodes=", ".join(missing)),
                                _("run {command} on those nodes").format(
                                    command=f"docker pull {image}")))
        elif len(distinct) > 1:
            detail = ", ".join(f"{n}={i[7:19]}" for n, i in sorted(valid.items()))
            checks.append(Check("*", f"image {image}", FAIL, _("differs: {ids}").format(ids=detail),
                                _("pull the same tag everywhere (docker pull) or pin a digest")))
        else:
            checks.append(Check("*", f"image {image}", PASS, next(iter(distinct), "")[:19]))
    return checks


async def metrics_check(transport: Transport, head: Workload, timeout: float) -> Check:
    """A serving head publishes /metrics (SGLang only with --enable-metrics): without it
    the dashboard has no load, KV or token figures for it."""
    from sparktui.engine.health import engine_status

    status = await engine_status(transport, transport.node.ssh_ip, head.port or 0, timeout)
    name = _("engine metrics")
    if status.metrics_ok:
        return Check(head.node, name, PASS, _("/metrics on port {port}").format(port=head.port))
    return Check(head.node, name, WARN, _("no engine metrics on port {port}").format(
        port=head.port), _("SGLang serves /metrics only with --enable-metrics; remove "
                           "engine_metrics = false from the recipe"))


async def doctor(config: Config, nodes: list[Node], transports: dict[str, Transport],
                 cluster: str, images: list[str]) -> list[Check]:
    nccl = config.nccl.get(cluster)
    ifname = nccl.socket_ifname if nccl else ""
    async def one(node: Node) -> tuple[list[Check], dict[str, str]]:
        script = gather_script(config.hf_cache_host, ifname, images, node.fabric_ip)
        sent = time.time()
        try:
            result = await transports[node.name].run(script)
        except NodeError as exc:
            if node.local:  # no SSH: a shell of this machine that failed
                return [Check(node.name, "local", FAIL, exc.text, str(exc.hint or ""))], {}
            return [Check(node.name, "ssh", FAIL, exc.text, str(exc.hint) if exc.hint else _(
                "is the node on? try {command}, then ssh to it by hand").format(
                    command="sparktui init-host-keys"))], {}
        received = time.time()
        sections = _sections(result.stdout)
        found = {img: sections.get(f"image {img}", "") for img in images}
        return evaluate(node, result.stdout, sent, received, ifname,
                        config.hf_cache_host), found

    results = await asyncio.gather(*(one(n) for n in nodes))
    checks = [c for node_checks, _ in results for c in node_checks]
    ids: dict[str, dict[str, str]] = {img: {} for img in images}
    for node, (_node_checks, found) in zip(nodes, results, strict=True):
        if found:
            for img, value in found.items():
                ids[img][node.name] = value
    return checks + image_checks({i: v for i, v in ids.items() if v})


async def cluster_doctor(config: Config, cluster: Cluster, transports: dict[str, Transport],
                         images: Sequence[str] = ()) -> list[Check]:
    """``doctor`` of every node of ``cluster``, the images checked (``images``; none: the
    images of what runs on the nodes), then the engine metrics of each serving head."""
    checked = list(images)
    heads = []
    for n in cluster.nodes:
        try:
            found = await discover(transports[n.name])
        except NodeError:
            continue  # doctor's own checks report the node and its docker
        heads += [w for w in found if w.role == "head" and w.running and w.port]
        if not images:
            checked += [w.image for w in found if w.image and w.image not in checked]
    checks = await doctor(config, cluster.ranked, transports, cluster.name, checked)
    timeout = config.health_timeout_seconds
    return checks + list(await asyncio.gather(*(
        metrics_check(transports[h.node], h, timeout) for h in heads if h.node in transports)))
