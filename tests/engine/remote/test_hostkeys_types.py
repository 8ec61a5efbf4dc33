"""Host key pins of every type against real sshd test hosts (issue 13, item 4).

A pin is whatever sparktui's known_hosts trusts for a node. A node that shows any other
key, of the pinned type or another, is "changed" for init-host-keys (exit 1, nothing
written) and "host key not trusted" for health, never a timeout.
"""

from __future__ import annotations

import subprocess

import asyncssh
import pytest

from sparktui.cli import main

KINDS = {"ed25519": "ssh-ed25519", "ecdsa": "ecdsa-sha2-nistp256", "rsa": "ssh-rsa"}


def _setup(fresh_cluster, tmp_path, n: int = 1):
    hosts = fresh_cluster(n)
    config = hosts.write_config(tmp_path / "config.toml")
    config.write_text("connect_timeout_seconds = 5\nhealth_timeout_seconds = 5\n"
                      + config.read_text())
    return hosts, ["--config", str(config)]


def _foreign_pin(node, kind: str) -> str:
    """A known_hosts line for node with a key of that type the node does not have."""
    key = asyncssh.generate_private_key(KINDS[kind]).export_public_key().decode().split()
    return f"[{node.addr}]:{node.port} {key[0]} {key[1]}\n"


def _offer_more_keys(node, *kinds: str) -> list[str]:
    """Restart node's sshd with one more host key per kind, as a real DGX OS node has
    (rsa, ecdsa, ed25519); returns each extra key's known_hosts line. The test hosts'
    API gives a node one host key, so this adds HostKey lines to its sshd_config."""
    extra = []
    for kind in kinds:
        path = node.state_dir / f"ssh_host_extra_{kind}_key"
        subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-f", str(path)],
                       check=True, capture_output=True, stdin=subprocess.DEVNULL)
        extra.append(path)
    write = node._write_sshd_config

    def write_with_extra_keys() -> None:
        write()
        with open(node.config_path, "a") as handle:
            handle.write("".join(f"HostKey {p}\n" for p in extra))

    node._write_sshd_config = write_with_extra_keys
    node.kill()
    node.start()
    lines = []
    for path in extra:
        kind, blob = path.with_name(path.name + ".pub").read_text().split()[:2]
        lines.append(f"[{node.addr}]:{node.port} {kind} {blob}\n")
    return lines


def _health_says_not_trusted(cli, capsys, node: str = "node1") -> None:
    capsys.readouterr()
    assert main([*cli, "health"]) == 1
    # The node's own row, not the cluster header that names it among the unknown.
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.split()[:1] == [node])
    assert "host key not trusted" in row and "timeout" not in row, row


@pytest.mark.parametrize(("pinned", "offered"),
                         [("ecdsa", "ed25519"), ("ed25519", "ecdsa"), ("rsa", "ed25519")])
def test_a_pin_of_another_type_is_changed_and_refused(fresh_cluster, tmp_path, capsys,
                                                      pinned, offered):
    hosts, cli = _setup(fresh_cluster, tmp_path)
    node = hosts.node("node1")
    if offered != "ed25519":
        node.rotate_host_key(offered)
    assert node.host_key_pub.startswith(KINDS[offered])
    hosts.known_hosts_path.write_text(_foreign_pin(node, pinned))
    before = hosts.known_hosts_path.read_bytes()

    _health_says_not_trusted(cli, capsys)
    assert main([*cli, "init-host-keys"]) == 1
    captured = capsys.readouterr()
    assert "node1" in captured.err and "HOST KEY CHANGED" in captured.err
    assert KINDS[pinned] in captured.err  # the pinned type is named
    assert "recorded" not in captured.out
    assert hosts.known_hosts_path.read_bytes() == before
    _health_says_not_trusted(cli, capsys)  # and still refused afterwards


def test_a_pin_of_the_same_type_with_another_key_is_changed(fresh_cluster, tmp_path, capsys):
    hosts, cli = _setup(fresh_cluster, tmp_path, n=2)
    node1, node2 = hosts.nodes
    hosts.known_hosts_path.write_text(_foreign_pin(node1, "ed25519")
                                      + node2.known_hosts_line() + "\n")
    before = hosts.known_hosts_path.read_bytes()

    _health_says_not_trusted(cli, capsys)
    assert main([*cli, "init-host-keys"]) == 1
    captured = capsys.readouterr()
    assert "node1" in captured.err and "HOST KEY CHANGED" in captured.err
    assert "node2: unchanged" in captured.out
    assert hosts.known_hosts_path.read_bytes() == before


def test_a_node_without_a_pin_is_new_and_recorded(fresh_cluster, tmp_path, capsys):
    hosts, cli = _setup(fresh_cluster, tmp_path, n=2)
    node1, node2 = hosts.nodes
    # node2's line lacks its newline: node1's recorded line must not be glued to it.
    hosts.known_hosts_path.write_text(node2.known_hosts_line())

    assert main([*cli, "init-host-keys"]) == 0
    out = capsys.readouterr().out
    assert "node1: recorded" in out and "node2: unchanged" in out
    assert hosts.known_hosts_path.read_text().splitlines() == [
        node2.known_hosts_line(), node1.known_hosts_line()]
    assert main([*cli, "health"]) == 0
    assert main([*cli, "init-host-keys"]) == 0
    assert "node1: unchanged" in capsys.readouterr().out


@pytest.mark.parametrize("pinned", ["ecdsa", "rsa"])
def test_a_node_with_several_keys_shows_the_pinned_type(fresh_cluster, tmp_path, capsys,
                                                        pinned):
    """Real nodes have rsa, ecdsa and ed25519 keys; a pin of any one of them is enough."""
    hosts, cli = _setup(fresh_cluster, tmp_path)
    node = hosts.node("node1")
    lines = dict(zip(["ecdsa", "rsa"], _offer_more_keys(node, "ecdsa", "rsa"), strict=True))
    hosts.known_hosts_path.write_text(lines[pinned])
    before = hosts.known_hosts_path.read_bytes()

    assert main([*cli, "init-host-keys"]) == 0
    assert "node1: unchanged" in capsys.readouterr().out
    assert hosts.known_hosts_path.read_bytes() == before
    assert main([*cli, "health"]) == 0


def test_a_hashed_pin_is_the_pin(fresh_cluster, tmp_path, capsys):
    """known_hosts hashed by `ssh-keygen -H` pins as the plain line did."""
    hosts, cli = _setup(fresh_cluster, tmp_path)
    node = hosts.node("node1")
    hosts.known_hosts_path.write_text(node.known_hosts_line() + "\n")
    subprocess.run(["ssh-keygen", "-q", "-H", "-f", str(hosts.known_hosts_path)],
                   check=True, capture_output=True, stdin=subprocess.DEVNULL)
    before = hosts.known_hosts_path.read_bytes()
    assert before.startswith(b"|1|")

    assert main([*cli, "init-host-keys"]) == 0
    assert "node1: unchanged" in capsys.readouterr().out
    assert hosts.known_hosts_path.read_bytes() == before
    assert main([*cli, "health"]) == 0


def test_a_known_hosts_line_asyncssh_rejects_trusts_nothing(fresh_cluster, tmp_path, capsys):
    """A file the connection cannot read is no file to append to, nor a traceback."""
    hosts, cli = _setup(fresh_cluster, tmp_path)
    node = hosts.node("node1")
    hosts.known_hosts_path.write_text("@revokd " + node.known_hosts_line() + "\n")
    before = hosts.known_hosts_path.read_bytes()

    _health_says_not_trusted(cli, capsys)
    # init-host-keys appends to the file: one that is not known_hosts is refused first,
    # naming the config line (a config may point it at any file: #28)
    assert main([*cli, "init-host-keys"]) == 2
    err = capsys.readouterr().err
    assert "config.toml:" in err and "is not a known_hosts file (its line 1" in err, err
    assert "Traceback" not in err
    assert hosts.known_hosts_path.read_bytes() == before
