"""Running a ``plan -f sh`` script for real, with a recording ``ssh`` on PATH.

``RECORDING_SSH`` is a stand-in for OpenSSH that runs nothing: it appends its argv
to a file (its count, then each argument NUL-terminated: an argument cannot hold a
NUL, so the record is exact), swallows its stdin and exits 0. What it received is
exactly what OpenSSH would have sent to the node: the options, the user, the host
and the one remote command string the node's shell would parse.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from sparktui.plan.model import LaunchPlan

RECORDING_SSH = r"""#!/bin/sh
{ printf '%s\0' "$#"; for arg in "$@"; do printf '%s\0' "$arg"; done; } >>"$SPARKTUI_SSH_RECORD"
cat >/dev/null
"""


def recording_bin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ssh = folder / "ssh"
    ssh.write_text(RECORDING_SSH, encoding="utf-8")
    ssh.chmod(0o755)
    return folder


def _calls(raw: bytes) -> list[list[str]]:
    fields = raw.split(b"\0")[:-1] if raw else []
    calls, i = [], 0
    while i < len(fields):
        count = int(fields[i])
        calls.append([f.decode("utf-8") for f in fields[i + 1:i + 1 + count]])
        i += 1 + count
    return calls


def run_recorded(script: str, bin_dir: Path, work: Path
                 ) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
    """``sh launch.sh`` in ``work`` with the recording ssh first on PATH; its calls."""
    record = work / ".ssh-record"
    record.unlink(missing_ok=True)
    path = work / ".launch.sh"
    path.write_text(script, encoding="utf-8")
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "HOME": str(work),
           "SPARKTUI_SSH_RECORD": str(record), "LC_ALL": "C.UTF-8"}
    proc = subprocess.run(["sh", str(path)], cwd=work, env=env, capture_output=True,
                          timeout=60, check=False)
    return proc, _calls(record.read_bytes() if record.exists() else b"")


def split_ssh(argv: list[str]) -> dict:
    """The parts of an OpenSSH argv: options, ``-l`` user, host after ``--``, command."""
    options: list[str] = []
    i, user = 0, None
    while argv[i] != "--":
        if argv[i] == "-l":
            user = argv[i + 1]
        elif argv[i] in ("-p", "-i", "-o"):
            options += argv[i:i + 2]
        i += 2 if argv[i] in ("-l", "-p", "-i", "-o") else 1
    rest = argv[i + 1:]
    assert len(rest) == 2, argv  # exactly one host and one command string
    return {"options": options, "user": user, "host": rest[0], "command": rest[1]}


RUN_MADE_ON_NODE = "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')"
"""The run id's word once the node's shell unquotes it (plan/render/run_id.py)."""
RUN_STAMPS = {"docker": ("--label", "sparktui.run="), "tmux": ("-e", "SPARKTUI_LABEL_RUN=")}


def unstamped(command: str) -> str:
    """A launch line as the plan's argv quoted (``shlex.join``), without the run id the
    node's shell makes: one option, right after the program's two words, whose value
    the node computes. Any other line comes back as it is."""
    words = shlex.split(command)
    for flag, key in RUN_STAMPS.values():
        if words[2:4] == [flag, key + RUN_MADE_ON_NODE]:
            rest = words[:2] + words[4:]
            assert not any(w.startswith(key) for w in rest), command  # stamped once
            return shlex.join(rest)
    return command


def expected_calls(plan: LaunchPlan) -> list[tuple[str, str]]:
    """(host, remote command) in the order the script runs them."""
    calls: list[tuple[str, str]] = []
    for node in plan.nodes:
        calls += [(node.ssh_ip, "bash -s" if step.kind == "script" else step.run)
                  for step in node.before_serve]

    def services(phases: tuple[str, ...]) -> None:
        for service in plan.services:
            if service.start in phases:
                calls.extend((inst.ssh_ip, shlex.join(inst.launch))
                             for inst in service.instances)

    services(("infra", "before_workers"))
    calls += [(plan.node(name).ssh_ip, shlex.join(plan.node(name).launch))
              for name in plan.start_order]
    services(("after_frontend",))
    return calls
