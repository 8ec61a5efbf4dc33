"""A POSIX sh script that performs the plan over plain ``ssh``.

Every remote argv is quoted twice on purpose: ``shlex.join`` for the remote
shell that ssh hands the command to, then ``shlex.quote`` for the local shell.
Nothing from the config or the recipe is written unquoted: comments show names
through ``visible`` (a newline would end the comment and start a command), and
ssh gets ``-l USER -- HOST`` so neither can be read as an option. No secret is written
in the file: the runner's environment provides each one (``sh_secrets``).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Protocol

from sparktui.plan.model import HookStep, LaunchPlan, NodePlan
from sparktui.plan.render.run_id import made_on_node, with_placeholder
from sparktui.plan.render.sh_secrets import Secrets, feeding, reading
from sparktui.plan.service_model import ServicePlan
from sparktui.visible import visible

_EOF = "SPARKTUI_SCRIPT_EOF"


def _local_path(path: str) -> str:
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


class _Reachable(Protocol):
    """A node plan or a service instance: what it takes to run a command there."""

    @property
    def ssh_ip(self) -> str: ...
    @property
    def ssh_port(self) -> int: ...
    @property
    def local(self) -> bool: ...


def comment(text: str) -> str:
    """A ``#`` line that stays one line whatever ``text`` holds."""
    return "# " + visible(text)


def _ssh(node: _Reachable, user: str, key: str | None, known_hosts: str | None) -> str:
    words = ["ssh", "-p", str(node.ssh_port)]
    opts = " ".join(shlex.quote(w) for w in words)
    if key:
        opts += " -i " + _local_path(key)
    if known_hosts:
        opts += " -o UserKnownHostsFile=" + _local_path(known_hosts)
    opts += " -o StrictHostKeyChecking=yes -o BatchMode=yes"
    return f"{opts} -l {shlex.quote(user)} -- {shlex.quote(node.ssh_ip)}"


def _on(node: _Reachable, prefix: str, remote_command: str) -> str:
    """Run a shell command line on the node (locally for the built-in local node).

    stdin is /dev/null: ssh reads its stdin, and in ``plan -f sh | sh`` that is the
    rest of this script, which would vanish into the first remote command.
    """
    if node.local:
        return f"sh -c {shlex.quote(remote_command)} </dev/null"
    return f"{prefix} {shlex.quote(remote_command)} </dev/null"


def launch_line(node: _Reachable, prefix: str, argv: list[str], secrets: Secrets) -> str:
    """``argv`` run on the node, each secret it holds by position passed by name from the
    runner's environment (``sh_secrets``): to a remote node on ssh's stdin."""
    command, names = secrets.command(argv)
    command = made_on_node(command)  # argv: ``with_placeholder``'s
    if not names or node.local:
        return _on(node, prefix, command)
    return f"{feeding(names)} | {prefix} {shlex.quote(reading(names, command))}"


def hook_line(node: NodePlan, prefix: str, step: HookStep, scripts: Mapping[str, str],
          secrets: Secrets) -> str:
    if step.kind == "script":
        missing = shlex.quote(f"unknown built-in script {visible(step.run)}")
        body = scripts.get(step.run, f"printf '%s\\n' {missing} >&2; exit 1\n")
        runner = "bash -s" if node.local else f"{prefix} {shlex.quote('bash -s')}"
        line = f"{runner} <<'{_EOF}'\n{body.rstrip()}\n{_EOF}"
    else:
        line = _on(node, prefix, secrets.text(step.run))
    if step.on_failure == "warn":
        # printf, not echo: dash's echo would turn a "\033" in the command into ESC.
        note = shlex.quote(f"warning: {node.name}: {step.kind} {visible(step.run)} failed, "
                           "continuing")
        warn = f"printf '%s\\n' {note} >&2"
        if step.kind == "script":
            return line.replace(f"<<'{_EOF}'", f"<<'{_EOF}' || {warn}", 1)
        return f"{line} || {warn}"
    return line


def render_sh(plan: LaunchPlan, *, scripts: Mapping[str, str], ssh_key_path: str | None = None,
              known_hosts_path: str | None = None) -> str:
    secrets = Secrets()
    head = [
        "#!/bin/sh",
        comment(f"sparktui launch plan: recipe {plan.recipe} on cluster {plan.cluster}"),
        "# Generated; each command's argv is quoted for the remote shell, then the local one.",
        "set -eu",
    ]
    out: list[str] = []
    if plan.hf_refs:
        names = ", ".join("{{" + r.placeholder + "}}" for r in plan.hf_refs)
        out.append(comment(f"HF references {names} are resolved per node by `sparktui serve`;"))
        out.append("# this script passes them through unresolved.")
    prefixes = {n.name: _ssh(n, plan.ssh_user, ssh_key_path, known_hosts_path)
                for n in plan.nodes}
    for node in plan.nodes:
        if node.before_serve:
            out.append("")
            out.append(comment(f"before serve on {node.name}"))
            out += [hook_line(node, prefixes[node.name], s, scripts, secrets)
                    for s in node.before_serve]
    def services(phases: tuple[str, ...]) -> None:
        for service in plan.services:
            if service.start in phases:
                out.extend(_service(service, plan.ssh_user, ssh_key_path, known_hosts_path,
                                    secrets))

    services(("infra", "before_workers"))
    for name in plan.start_order:
        node = plan.node(name)
        out.append("")
        out.append(comment(f"launch on {node.name} (rank {node.rank}, {node.role})"))
        out.append(launch_line(node, prefixes[name], with_placeholder(plan.runtime, node.launch),
                           secrets))
    services(("after_frontend",))
    out = secrets.scrubbed(out)
    return "\n".join([*head, *secrets.preamble(), *out]) + "\n"


def _service(service: ServicePlan, user: str, key: str | None,
             known_hosts: str | None, secrets: Secrets) -> list[str]:
    """One launch line per instance; readiness is noted, not waited for."""
    ready = service.readiness
    probe = ready.kind if ready.port is None else f"{ready.kind} :{ready.port}"
    lines = ["", comment(f"service {service.name} ({service.type}, {service.start}); "
                          f"sparktui serve waits for readiness {probe}, this script does not")]
    for inst in service.instances:
        prefix = _ssh(inst, user, key, known_hosts)
        lines.append(launch_line(inst, prefix, with_placeholder(service.runtime, inst.launch),
                             secrets))
    return lines
