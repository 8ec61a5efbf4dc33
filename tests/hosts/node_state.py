"""A simulated node's knobs (what its fakes report) and records (what ran on it): JSON
files in its state folder, read by the stand-ins and the test engine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class NodeState:
    """The state-folder side of ``Node``."""

    state_dir: Path

    def _read_json(self, name: str, default: Any) -> Any:
        try:
            return json.loads((self.state_dir / name).read_text())
        except (OSError, ValueError):
            return default

    def _write_json(self, name: str, data: Any) -> None:
        tmp = self.state_dir / f".{name}.tmp"
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, self.state_dir / name)

    def set_engine(self, **values: Any) -> None:
        """Merge values into engine.json (running, waiting, kv, prompt_tps, gen_tps,
        rps, ttft, tpot, max_model_len); the test engine re-reads it on each request."""
        data = self._read_json("engine.json", {})
        data.update(values)
        self._write_json("engine.json", data)

    def set_gpu(self, **values: Any) -> None:
        """Merge into gpu.json: nvidia-smi field names (e.g. **{"utilization.gpu": 90})
        or fail=True to make nvidia-smi exit 9."""
        data = self._read_json("gpu.json", {})
        data.update(values)
        self._write_json("gpu.json", data)

    def set_free_disk(self, free: int) -> None:
        """The available bytes the node's ``df`` reports for every file system
        (standin/df); the reset removes it."""
        (self.state_dir / "disk-free").write_text(f"{int(free)}\n")

    def set_power(self, **values: Any) -> None:
        """Merge into power.json, read by the shutdown/poweroff stand-in: ignore=True
        (accepts, never goes down), fail="text" (exit 1), delay=seconds."""
        data = self._read_json("power.json", {})
        data.update(values)
        self._write_json("power.json", data)

    def set_memory(self, *, total: float | None = None, available: float | None = None) -> None:
        """Give the node memory figures of its own (bytes): its shells' ``cat
        /proc/meminfo`` (standin/cat) then reads this machine's meminfo with MemTotal,
        and MemAvailable and MemFree, set to these. A stand-in: the simulated nodes share
        this machine's memory, where each DGX Spark has its own."""
        lines, old = [], self._meminfo_values()
        values = {"MemTotal": total if total is not None else old.get("MemTotal")}
        avail = available if available is not None else old.get("MemAvailable")
        values.update(MemAvailable=avail, MemFree=avail)
        for line in Path("/proc/meminfo").read_text().splitlines():
            key = line.split(":", 1)[0]
            if values.get(key) is not None:
                line = f"{key + ':':<16}{int(values[key]) // 1024:>8} kB"
            lines.append(line)
        tmp = self.state_dir / ".meminfo.tmp"
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, self.state_dir / "meminfo")

    def _meminfo_values(self) -> dict[str, float]:
        """MemTotal and MemAvailable as the node's shells read them now (bytes)."""
        try:
            text = (self.state_dir / "meminfo").read_text()
        except OSError:
            text = Path("/proc/meminfo").read_text()
        found = {}
        for line in text.splitlines():
            key, _, rest = line.partition(":")
            if key in ("MemTotal", "MemAvailable") and rest.split():
                found[key] = float(rest.split()[0]) * 1024
        return found

    def hold_docker_run(self) -> None:
        """From now on each ``docker run`` on this node is recorded, then waits (in
        standin/docker) until ``release_docker_run``: a launch under way, for as long as
        a test needs it to be."""
        (self.state_dir / "hold-run").touch()

    def hold_docker_load(self) -> None:
        """From now on each ``docker load`` on this node is recorded, then waits until
        ``release_docker_load``: a copy under way, for as long as a test needs it."""
        (self.state_dir / "hold-load").touch()

    def release_docker_load(self) -> None:
        (self.state_dir / "hold-load").unlink(missing_ok=True)

    def docker_loads_held(self) -> int:
        """How many ``docker load`` calls have reached the hold."""
        return len(list(self.state_dir.glob("held-load-*")))

    def swap_after_load(self, source: str, ref: str) -> None:
        """From now on each ``docker load`` on this node loads, then tags ``source`` (an
        image of this node) as ``ref``: the node answers with another image than the one
        it was sent."""
        (self.state_dir / "swap-after-load").write_text(f"{source} {ref}\n")

    def release_docker_run(self) -> None:
        (self.state_dir / "hold-run").unlink(missing_ok=True)

    def docker_runs_held(self) -> int:
        """How many ``docker run`` calls have reached the hold."""
        return len(list(self.state_dir.glob("held-run-*")))

    def _jsonl(self, name: str) -> list[list[str]]:
        try:
            lines = (self.state_dir / name).read_text().splitlines()
        except OSError:
            return []
        return [json.loads(line)["argv"] for line in lines if line.strip()]

    def recorded_docker(self) -> list[list[str]]:
        """Every docker invocation on this node, as argv lists starting with "docker"."""
        return [record["argv"] for record in self.docker_records()]

    def docker_records(self) -> list[dict[str, Any]]:
        """``{"argv": [...], "time": t}`` of every docker invocation, in time order (the
        recorder, standin/docker, leaves a file per call)."""
        folder = self.state_dir / "docker-argv"
        try:
            names = os.listdir(folder)
        except OSError:
            return []
        records = []
        for name in names:
            stamp, _, pid = name.rpartition("-")
            try:
                count, *argv = (folder / name).read_bytes().decode(
                    "utf-8", "surrogateescape").split("\0")[:-1]
                when = float(stamp.replace(",", "."))
            except (OSError, ValueError):
                continue
            if argv and len(argv) == int(count):  # else still being written
                records.append((when, int(pid), argv))
        return [{"argv": argv, "time": when} for when, _pid, argv in sorted(records)]

    def recorded_sudo(self) -> list[list[str]]:
        return self._jsonl("sudo-argv.jsonl")

    def recorded_power(self) -> list[list[str]]:
        """Every shutdown/poweroff stand-in call on this node."""
        return self._jsonl("power-argv.jsonl")
