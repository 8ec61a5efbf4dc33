"""Each way an SSH connection fails reads as what it is, once, with the fix it points at:
a missing key file, a key the node refuses, an untrusted host key, a server that closes
the connection at once. Seen through ``python -m sparktui health`` and ``doctor`` against
the real sshd test hosts."""

from __future__ import annotations

import socket
import subprocess
import sys

from plan_support import subprocess_env
from polling import eventually


def _sparktui(s, *args: str) -> str:
    """What ``python -m sparktui ARGS`` printed (both streams); it must fail."""
    done = subprocess.run([sys.executable, "-m", "sparktui", *s.cli(*args)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env=subprocess_env())
    assert done.returncode != 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _set_key(s, path: str) -> None:
    text = s.config_path.read_text()
    old = f'ssh_key_path = "{s.hosts.key_path}"\n'
    assert old in text
    s.config_path.write_text(text.replace(old, f'ssh_key_path = "{path}"\n'))


def _both(s) -> list[str]:
    return [_sparktui(s, "health"), _sparktui(s, "doctor")]


def _said_once(out: str, reason: str) -> None:
    assert f"{reason}: " in out, out
    assert f"{reason}: {reason}" not in out and "unreachable: unreachable" not in out, out


def test_a_missing_key_file_names_the_file_and_the_setting(site, tmp_path):
    s = site(1)
    missing = tmp_path / "no-such-key"
    _set_key(s, str(missing))
    for out in _both(s):
        _said_once(out, "ssh key missing")
        assert f"{missing} (ssh_key_path) does not exist" in out, out
        assert f"ssh-keygen -t ed25519 -f {missing}" in out, out
        assert "is the node on" not in out and "No such file" not in out, out


def test_a_refused_key_says_the_node_does_not_accept_it(site, tmp_path):
    s = site(1)
    wrong = tmp_path / "wrong_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(wrong)],
                   check=True, capture_output=True)
    _set_key(s, str(wrong))
    for out in _both(s):
        _said_once(out, "authentication failed")
        assert f"ssh-copy-id -i {wrong}" in out and "is the node on" not in out, out


def test_an_empty_known_hosts_says_run_init_host_keys(site):
    s = site(1)
    s.hosts.known_hosts_path.write_text("")
    for out in _both(s):
        _said_once(out, "host key not trusted")
        assert "run sparktui init-host-keys" in out and "is the node on" not in out, out


def _held_unauthenticated(node) -> socket.socket:
    """A TCP connection that got sshd's banner and never logs in: it holds MaxStartups'
    one unauthenticated slot (sshd's own start-up probe may hold it a moment first: a
    connection told "Exceeded MaxStartups" is tried again)."""
    def banner() -> socket.socket | None:
        held = socket.create_connection((node.addr, node.port), timeout=10)
        if held.recv(64).startswith(b"SSH-"):
            return held
        held.close()
        return None

    return eventually(banner, 30, "sshd's banner on a connection that holds the slot")


def test_a_server_that_closes_the_connection_is_no_timeout(fresh_site):
    s = fresh_site(1)
    node = s.hosts.node("node1")
    # With one unauthenticated connection held, MaxStartups 1:100:1 makes sshd print
    # "Exceeded MaxStartups" to every new one and close it before the SSH banner: at
    # once, not after 10 s.
    node.reconfigure("MaxStartups 1:100:1")
    held = _held_unauthenticated(node)
    try:
        for out in _both(s):
            _said_once(out, "connection closed")
            assert "closed the connection before login" in out and "MaxStartups" in out, out
            assert "timeout" not in out and "no SSH answer" not in out, out
            assert "unreachable" not in out and "Connection reset" not in out, out
    finally:
        held.close()
