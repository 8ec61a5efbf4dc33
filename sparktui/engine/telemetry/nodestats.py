"""Node figures from one cheap shell line per sample, or from an exporter's /metrics.

The line is built from fixed argv pieces (``shlex.join`` once each) and reads
``/proc/stat``, ``/proc/meminfo``, ``nvidia-smi --query-gpu``, ``df`` of the HF cache
folder and the newest OOM lines of the kernel log. Nothing is installed on the node;
each part tolerates its tool being absent or refused. Parsers here are pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from sparktui.engine.remote.transport import argv_command
from sparktui.engine.telemetry.metrics import labelled_samples

MARK = "@@sparktui-telemetry@@"
GPU_QUERY = "utilization.gpu,power.draw,temperature.gpu,memory.used"
KERNEL_PATTERN = "out of memory|oom-kill|oom_reaper|killed process|NV_ERR_NO_MEMORY"
KERNEL_LINES = 3


def sample_command(hf_cache: str, *, proc: bool = True, gpu: bool = True) -> str:
    """The one command a sample runs on a node (sections split by ``MARK``).

    ``proc``/``gpu`` False: an exporter on the node gives those figures instead.
    """
    parts = []
    if proc:
        parts.append(argv_command(["cat", "/proc/stat", "/proc/meminfo"]) + " 2>/dev/null")
    parts.append(f"echo {MARK}gpu")
    if gpu:
        parts.append(argv_command(["nvidia-smi", f"--query-gpu={GPU_QUERY}",
                                   "--format=csv,noheader,nounits"]) + " 2>/dev/null")
    parts.append(f"echo {MARK}df")
    parts.append(disk_command(hf_cache))
    parts.append(f"echo {MARK}kernel")
    dmesg = argv_command(["dmesg", "--time-format", "iso"])
    journal = argv_command(["journalctl", "-k", "-q", "--no-pager", "-o", "short-iso",
                            "-n", "5000"])
    parts.append("{ " + dmesg + " 2>/dev/null || " + journal + " 2>/dev/null; } | "
                 + argv_command(["grep", "-E", "-i", KERNEL_PATTERN]) + " | "
                 + argv_command(["tail", "-n", str(KERNEL_LINES)]))
    return "; ".join(parts) + "; true"


DISK_ABSENT = "--sparktui-absent--"  # no "@@": doctor splits its sections on those


def disk_command(path: str) -> str:
    """``df -Pk`` of the filesystem ``path`` is on, or will be created on: its nearest
    existing folder (a fresh node has no HF cache folder until the first download, and
    its free space is still a figure); then DISK_ABSENT when ``path`` itself is missing.
    doctor and telemetry both run this, so both give the same figure."""
    quoted = argv_command([path])
    return (f"d={quoted}; while [ ! -e \"$d\" ] && [ \"$d\" != / ]; do "
            'd=$(dirname -- "$d"); done; df -Pk -- "$d" 2>/dev/null; '
            f"[ -e {quoted} ] || echo {DISK_ABSENT}")


@dataclass
class RawNode:
    """One sample's parsed text, before deltas: cumulative CPU times and plain gauges."""

    cpu: tuple[float, float] | None = None  # (busy, total) cumulative, any unit
    mem: dict[str, float] = field(default_factory=dict)  # meminfo keys, bytes
    gpu: dict[str, float | None] = field(default_factory=dict)
    disk: tuple[float, float] | None = None  # (free, total) bytes
    kernel: list[str] = field(default_factory=list)


def parse_sample(output: str) -> RawNode:
    sections = output.split(MARK)
    raw = RawNode()
    proc = sections[0]
    raw.cpu = parse_proc_stat(proc)
    raw.mem = parse_meminfo(proc)
    for section in sections[1:]:
        name, _, body = section.partition("\n")
        if name == "gpu":
            raw.gpu = parse_gpu_csv(body)
        elif name == "df":
            raw.disk = parse_df(body)
        elif name == "kernel":
            raw.kernel = parse_kernel(body)
    return raw


def parse_proc_stat(text: str) -> tuple[float, float] | None:
    """(busy, total) jiffies from the aggregate ``cpu`` line (guest time is in user)."""
    for line in text.splitlines():
        if line.startswith("cpu "):
            try:
                fields = [float(x) for x in line.split()[1:9]]
            except ValueError:
                return None
            fields += [0.0] * (8 - len(fields))
            total = sum(fields)
            idle = fields[3] + fields[4]  # idle + iowait
            return total - idle, total
    return None


def parse_meminfo(text: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in text.splitlines():
        key, sep, rest = line.partition(":")
        if not sep or " " in key:
            continue
        parts = rest.split()
        if not parts:
            continue
        try:
            value = float(parts[0])
        except ValueError:
            continue
        found[key] = value * 1024 if len(parts) > 1 and parts[1] == "kB" else value
    return found if "MemTotal" in found else {}


def _num(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None  # "[N/A]", "[Not Supported]"


def parse_gpu_csv(text: str) -> dict[str, float | None]:
    """Mean utilisation, summed power and memory, hottest temperature over the GPUs."""
    rows = [[_num(x) for x in line.split(",")] for line in text.splitlines()
            if line.count(",") >= 3]
    if not rows:
        return {}

    def col(i: int) -> list[float]:
        return [r[i] for r in rows if r[i] is not None]  # type: ignore[misc]

    return gpu_summary(col(0), col(1), col(2), col(3))


def gpu_summary(util: list[float], power: list[float], temp: list[float],
                mem_mib: list[float]) -> dict[str, float | None]:
    """Per-GPU readings (nvidia-smi's or dcgm-exporter's) as one node's figures."""
    return {"util": sum(util) / len(util) if util else None,
            "power": sum(power) if power else None,
            "temp": max(temp) if temp else None,
            "mem_used": sum(mem_mib) * 1024 * 1024 if mem_mib else None}


def parse_df(text: str) -> tuple[float, float] | None:
    lines = [line for line in text.splitlines() if line.strip() and line != DISK_ABSENT]
    if len(lines) < 2:
        return None
    fields = lines[-1].split()
    try:
        return float(fields[3]) * 1024, float(fields[1]) * 1024
    except (IndexError, ValueError):
        return None


def parse_kernel(text: str) -> list[str]:
    """The newest matching lines, oldest first; journalctl's ``host kernel:`` dropped."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        stamp, _, rest = line.partition(" ")
        if " kernel: " in rest:
            rest = rest.split(" kernel: ", 1)[1]
        out.append(f"{stamp} {rest}".strip())
    return out[-KERNEL_LINES:]


class MemorySplit(TypedDict, total=False):
    """``NodeFigures``' memory fields; none of them when the node gave no MemTotal."""

    mem_total: float
    mem_used: float
    mem_cache: float
    mem_available: float
    mem_pct: float
    swap_total: float | None
    swap_used: float | None


def memory_split(mem: dict[str, float]) -> MemorySplit:
    """Used by processes vs page cache vs available, as ``free`` splits it, plus swap."""
    total = mem.get("MemTotal")
    if not total:
        return {}
    cache = mem.get("Buffers", 0.0) + mem.get("Cached", 0.0) + mem.get("SReclaimable", 0.0)
    free = mem.get("MemFree", 0.0)
    available = mem.get("MemAvailable", free + cache)
    swap_total = mem.get("SwapTotal")
    swap_free = mem.get("SwapFree")
    return {
        "mem_total": total, "mem_used": max(0.0, total - free - cache), "mem_cache": cache,
        "mem_available": available, "mem_pct": 100.0 * (total - available) / total,
        "swap_total": swap_total,
        "swap_used": (swap_total - swap_free) if swap_total is not None
        and swap_free is not None else None,
    }


def cpu_percent(before: tuple[float, float] | None,
                after: tuple[float, float] | None) -> float | None:
    if before is None or after is None:
        return None
    busy, total = after[0] - before[0], after[1] - before[1]
    if total <= 0 or busy < 0:
        return None
    return max(0.0, min(100.0, 100.0 * busy / total))


# -- exporters -------------------------------------------------------------------------

NODE_EXPORTER_MEM = {"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached",
                     "SReclaimable", "SwapTotal", "SwapFree"}


def parse_node_exporter(text: str, raw: RawNode) -> None:
    """CPU seconds and meminfo from node-exporter, into ``raw`` (replacing /proc)."""
    busy = total = 0.0
    seen_cpu = False
    mem: dict[str, float] = {}
    for name, labels, value in labelled_samples(text):
        if name == "node_cpu_seconds_total":
            seen_cpu = True
            total += value
            if labels.get("mode") not in ("idle", "iowait"):
                busy += value
        elif name.startswith("node_memory_") and name.endswith("_bytes"):
            key = name[len("node_memory_"):-len("_bytes")]
            if key in NODE_EXPORTER_MEM:
                mem[key] = value
    if seen_cpu:
        raw.cpu = (busy, total)
    if "MemTotal" in mem:
        raw.mem = mem


DCGM = {"DCGM_FI_DEV_GPU_UTIL": "util", "DCGM_FI_DEV_POWER_USAGE": "power",
        "DCGM_FI_DEV_GPU_TEMP": "temp", "DCGM_FI_DEV_FB_USED": "mem_used"}


def parse_dcgm(text: str, raw: RawNode) -> None:
    """GPU figures from dcgm-exporter, into ``raw`` (replacing nvidia-smi)."""
    per: dict[str, list[float]] = {}
    for name, _labels, value in labelled_samples(text):
        if name in DCGM:
            per.setdefault(DCGM[name], []).append(value)
    if not per:
        return
    raw.gpu = gpu_summary(*(per.get(k, []) for k in ("util", "power", "temp", "mem_used")))
