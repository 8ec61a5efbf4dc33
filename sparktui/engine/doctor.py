"""doctor: per-node checks with a pass/warn/fail line and a hint each.

Each node answers one gathering script (one round trip); the verdicts are
computed here so they are testable without a node. Their details and hints are codes
(``DoctorSaid``) and values: ``sparktui.present.doctor`` makes the words, ``doctor --json``
is the same document in every language. What a node said (docker's error, nvidia-smi's
line, an interface's state) stays the text it came as, cut as before.
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
from sparktui.engine.pull.trust import trust_checks
from sparktui.engine.remote.transport import NodeError, Transport
from sparktui.engine.status import Workload
from sparktui.engine.telemetry.nodestats import DISK_ABSENT, disk_command, parse_df
from sparktui.engine.workloads.discover import discover
from sparktui.i18n import N_
from sparktui.plan.runtime.docker_node import NO_GPU_DRIVER, TOOLKIT_FIX, docker_error, gpus_given
from sparktui.said import Code, Gib, Layout, Millis, Number, Said, Text, joined, said

GPUS_OK = "sparktui-gpus-ok"
NO_IMAGE = "sparktui-no-image"
MIN_FREE_GIB = 8.0
MIN_DISK_GIB = 100.0
MAX_SKEW_SECONDS = 1.0
METRICS_CHECK = "engine metrics"


class DoctorSaid(Code):
    """What doctor's checks say: a detail, or the hint that fixes it."""

    LOCAL = N_("commands run on this machine, without SSH ({ms})")
    SSH_BY_HAND = N_("is the node on? try {command}, then ssh to it by hand")
    DOCKER_SERVER = N_("server {version}")
    NO_ANSWER = N_("no answer")
    START_DAEMON = N_("start the daemon: {command}")
    NVIDIA_SMI_MISSING = N_("nvidia-smi is not on this node's PATH: install the NVIDIA "
                            "driver, which brings it")
    CHECK_DRIVER = N_("check the driver with nvidia-smi; reboot after a driver update")
    GPU_SILENT = N_("nvidia-smi gave nothing")
    GPUS_GIVEN = N_("docker run --gpus all starts a container")
    INSTALL_TOOLKIT = N_("install the NVIDIA Container Toolkit (it brings "
                         "nvidia-container-runtime-hook), then restart docker: {command}")
    MEMORY = N_("{available} available, swap used {swap}")
    FREE_MEMORY = N_("free unified memory: stop_dgx_services or drop caches")
    DISK_UNREAD = N_("df gave no figure for {path}")
    DISK_UNREAD_HINT = N_("check that the node has df and can read {path}")
    DISK_FREE = N_("{free} free for the HF cache")
    DISK_NOT_YET = N_("({path} does not exist yet: the free space where it will be "
                      "created)")
    PRUNE = N_("prune old snapshots: {command}")
    NIC_MISSING = N_("missing")
    NIC_UP = N_("bring it up: {command}; check the QSFP cable")
    NO_IP_COMMAND = N_("cannot check: no `ip` command")
    INSTALL = N_("install {package}")
    FABRIC_OURS = N_("{ip} is this node's")
    FABRIC_NOT_OURS = N_("{ip} is not an address of this node")
    FIX_FABRIC = N_("fix the netplan for the fabric interface or the ib_ip in config.toml")
    SKEW = N_("skew {seconds} s")
    TIME_SYNC = N_("enable time sync: {command}")
    UNREADABLE = N_("unreadable")
    IMAGE_MISSING = N_("missing on {nodes}")
    PULL = N_("run {command} on those nodes")
    IMAGE_DIFFERS = N_("differs: {ids}")
    PULL_SAME = N_("pull the same tag everywhere (docker pull) or pin a digest")
    METRICS = N_("/metrics on port {port}")
    NO_METRICS = N_("no engine metrics on port {port}")
    ENABLE_METRICS = N_("SGLang serves /metrics only with --enable-metrics; remove "
                        "engine_metrics = false from the recipe")


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
        return Check(node, "disk", WARN, said(DoctorSaid.DISK_UNREAD, path=hf_cache),
                     said(DoctorSaid.DISK_UNREAD_HINT, path=hf_cache))
    free_gib = disk[0] / (1 << 30)
    detail: Said = said(DoctorSaid.DISK_FREE, free=Gib(free_gib, 0))
    if DISK_ABSENT in section.splitlines():
        detail = joined(Layout.SPACE, detail, said(DoctorSaid.DISK_NOT_YET, path=hf_cache))
    return Check(node, "disk", PASS if free_gib >= MIN_DISK_GIB else WARN, detail,
                 "" if free_gib >= MIN_DISK_GIB else
                 said(DoctorSaid.PRUNE, command="huggingface-cli delete-cache"))


def _gpu_check(node: str, gpu: str) -> Check:
    """nvidia-smi's first line; a failure's hint fits it: a node without nvidia-smi is
    told where it comes from, not to run it."""
    low = gpu.lower()
    if gpu and "failed" not in low and "not found" not in low:
        return Check(node, "gpu", PASS, gpu.splitlines()[0])
    hint = said(DoctorSaid.NVIDIA_SMI_MISSING if "not found" in low else
                DoctorSaid.CHECK_DRIVER)
    return Check(node, "gpu", FAIL, gpu[:120] or said(DoctorSaid.GPU_SILENT), hint)


def _gpus_check(node: str, answer: str) -> Check | None:
    """Whether the node's dockerd starts a container with ``--gpus all`` (None: no image
    of those asked for is on the node to try it with)."""
    if answer.endswith(GPUS_OK) or gpus_given(answer):
        return Check(node, "gpu runtime", PASS, said(DoctorSaid.GPUS_GIVEN))
    if answer == NO_IMAGE:
        return None
    why = docker_error(answer)[:120]
    return Check(node, "gpu runtime", FAIL, why or said(DoctorSaid.NO_ANSWER),
                 said(DoctorSaid.INSTALL_TOOLKIT, command=TOOLKIT_FIX) if NO_GPU_DRIVER in why
                 else said(DoctorSaid.CHECK_DRIVER))


def evaluate(node: Node, output: str, sent_at: float, received_at: float,
             ifname: str, hf_cache: str) -> list[Check]:
    s = _sections(output)
    name = node.name
    took = Millis((received_at - sent_at) * 1000)
    checks = [Check(name, "local", PASS, said(DoctorSaid.LOCAL, ms=took)) if node.local else
              Check(name, "ssh", PASS, said(Layout.VALUE, value=took))]
    docker = s.get("docker", "")
    checks.append(Check(name, "docker", PASS, said(DoctorSaid.DOCKER_SERVER, version=docker))
                  if docker and docker[0].isdigit() else
                  Check(name, "docker", FAIL, docker[:120] or said(DoctorSaid.NO_ANSWER),
                        said(DoctorSaid.START_DAEMON, command="sudo systemctl start docker")))
    checks.append(_gpu_check(name, s.get("gpu", "")))
    if "gpus" in s and (runtime := _gpus_check(name, s["gpus"])) is not None:
        checks.append(runtime)
    mem = {k.rstrip(":"): int(v) for k, v, *_ in
           (line.split() for line in s.get("meminfo", "").splitlines() if line.strip())}
    avail = mem.get("MemAvailable", 0) / 1048576
    swap_used = (mem.get("SwapTotal", 0) - mem.get("SwapFree", 0)) / 1048576
    status = PASS if avail >= MIN_FREE_GIB else WARN
    checks.append(Check(name, "memory", status, said(DoctorSaid.MEMORY, available=Gib(avail),
                                                     swap=Gib(swap_used)),
                        "" if status == PASS else said(DoctorSaid.FREE_MEMORY)))
    checks.append(_disk_check(name, s.get("disk", ""), hf_cache))
    for iface in [i.strip() for i in ifname.split(",") if i.strip()]:
        state = s.get(f"if {iface}", "")
        ok = state in ("up", "unknown")
        checks.append(Check(name, f"nic {iface}", PASS if ok else FAIL,
                            state or said(DoctorSaid.NIC_MISSING),
                            "" if ok else said(DoctorSaid.NIC_UP,
                                               command=f"sudo ip link set {iface} up")))
    if node.ib_ip:
        route = s.get("fabric", "")
        if "not found" in route:
            checks.append(Check(name, "fabric ip", WARN, said(DoctorSaid.NO_IP_COMMAND),
                                said(DoctorSaid.INSTALL, package="iproute2")))
        else:
            ok = route.startswith("local ")
            checks.append(Check(name, "fabric ip", PASS if ok else FAIL,
                                said(DoctorSaid.FABRIC_OURS if ok else
                                     DoctorSaid.FABRIC_NOT_OURS, ip=node.ib_ip),
                                "" if ok else said(DoctorSaid.FIX_FABRIC)))
    try:
        remote = float(s.get("clock", "").strip())
        skew = remote - (sent_at + received_at) / 2
        checks.append(Check(name, "clock", PASS if abs(skew) <= MAX_SKEW_SECONDS else WARN,
                            said(DoctorSaid.SKEW, seconds=Number(skew, 2, fixed=True,
                                                                 signed=True)),
                            "" if abs(skew) <= MAX_SKEW_SECONDS else
                            said(DoctorSaid.TIME_SYNC, command="sudo timedatectl set-ntp true")))
    except ValueError:
        checks.append(Check(name, "clock", WARN, said(DoctorSaid.UNREADABLE)))
    return checks


def image_checks(ids: dict[str, dict[str, str]]) -> list[Check]:
    """ids: image -> node -> image id (or error text). Equal everywhere, or say who differs."""
    checks = []
    for image, per_node in ids.items():
        valid = {n: i for n, i in per_node.items() if i.startswith("sha256:")}
        missing = sorted(set(per_node) - set(valid))
        distinct = set(valid.values())
        if missing:
            checks.append(Check("*", f"image {image}", FAIL,
                                said(DoctorSaid.IMAGE_MISSING, nodes=missing),
                                said(DoctorSaid.PULL, command=f"docker pull {image}")))
        elif len(distinct) > 1:
            each = [f"{n}={i[7:19]}" for n, i in sorted(valid.items())]
            checks.append(Check("*", f"image {image}", FAIL,
                                said(DoctorSaid.IMAGE_DIFFERS, ids=each),
                                said(DoctorSaid.PULL_SAME)))
        else:
            checks.append(Check("*", f"image {image}", PASS, next(iter(distinct), "")[:19]))
    return checks


async def metrics_check(transport: Transport, head: Workload, timeout: float) -> Check:
    """A serving head publishes /metrics (SGLang only with --enable-metrics): without it
    the dashboard has no load, KV or token figures for it."""
    from sparktui.engine.health import engine_status

    status = await engine_status(transport, transport.node.ssh_ip, head.port or 0, timeout)
    if status.metrics_ok:
        return Check(head.node, METRICS_CHECK, PASS, said(DoctorSaid.METRICS, port=head.port))
    return Check(head.node, METRICS_CHECK, WARN, said(DoctorSaid.NO_METRICS, port=head.port),
                 said(DoctorSaid.ENABLE_METRICS))


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
                return [Check(node.name, "local", FAIL, exc.said, exc.hint or "")], {}
            hint: Text = exc.hint or said(DoctorSaid.SSH_BY_HAND,
                                          command="sparktui init-host-keys")
            return [Check(node.name, "ssh", FAIL, exc.said, hint)], {}
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
    images of what runs on the nodes), whether each node reaches the others over the
    fabric with SSH (a pull's copies; two nodes or more), then the engine metrics of each
    serving head."""
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
    answered = {c.node for c in checks if c.name in ("ssh", "local") and c.status == PASS}
    checks += await trust_checks(config, [n for n in cluster.ranked if n.name in answered],
                                 transports)
    timeout = config.health_timeout_seconds
    return checks + list(await asyncio.gather(*(
        metrics_check(transports[h.node], h, timeout) for h in heads if h.node in transports)))
