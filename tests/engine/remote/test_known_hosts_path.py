"""``known_hosts_path`` names only a known_hosts file (sparktui/engine/remote/hostkeys.py).

A shared config's ``known_hosts_path = "~/.bashrc"`` made init-host-keys append key lines
to the operator's shell profile and chmod it 0600. A file that exists is written to only
when every line is a known_hosts entry (or empty, or a comment), refused at the config's
line otherwise; and an existing file's mode is never changed. Against real sshd hosts.
"""

from __future__ import annotations

import os
import stat

import asyncssh
import pytest

from sparktui.cli import main
from sparktui.engine.remote.hostkeys import is_known_hosts_entry

BASHRC = "# ~/.bashrc\nexport PATH=$HOME/bin:$PATH\nalias ll='ls -l'\n"


def _setup(fresh_cluster, tmp_path):
    hosts = fresh_cluster(1)
    config = hosts.write_config(tmp_path / "config.toml")
    config.write_text("connect_timeout_seconds = 5\n" + config.read_text())
    return hosts, config


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _key_line(pattern: str, marker: str = "") -> str:
    kind, blob = asyncssh.generate_private_key("ssh-ed25519").export_public_key() \
        .decode().split()[:2]
    return f"{marker}{pattern} {kind} {blob} a comment"


def test_a_shell_profile_as_known_hosts_is_refused_untouched(fresh_cluster, tmp_path, capsys):
    hosts, config = _setup(fresh_cluster, tmp_path)
    profile = hosts.known_hosts_path
    profile.write_text(BASHRC)
    os.chmod(profile, 0o644)

    assert main(["--lang", "en", "--config", str(config), "init-host-keys"]) == 2
    err = capsys.readouterr().err
    line = next(n for n, text in enumerate(config.read_text().splitlines(), 1)
                if text.startswith("known_hosts_path"))
    assert err.startswith(f"{config}:{line}: known_hosts_path: '{profile}' is not a "
                          "known_hosts file (its line 2 is no host key entry)"), err
    assert profile.read_text() == BASHRC
    assert _mode(profile) == 0o644


def test_an_existing_known_hosts_keeps_its_mode_and_gains_the_key(fresh_cluster, tmp_path,
                                                                 capsys):
    hosts, config = _setup(fresh_cluster, tmp_path)
    node = hosts.node("node1")
    kept = ["# the operator's own", "", _key_line("other.example,10.0.0.9"),
            _key_line("*.lab", "@cert-authority "), _key_line("[10.0.0.8]:2222", "@revoked "),
            _key_line("|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg=")]
    hosts.known_hosts_path.write_text("\n".join(kept) + "\n")
    os.chmod(hosts.known_hosts_path, 0o644)

    assert main(["--lang", "en", "--config", str(config), "init-host-keys"]) == 0
    assert "node1: recorded" in capsys.readouterr().out
    assert hosts.known_hosts_path.read_text().splitlines() == [*kept, node.known_hosts_line()]
    assert _mode(hosts.known_hosts_path) == 0o644


def test_a_missing_known_hosts_is_created_private(fresh_cluster, tmp_path, capsys):
    hosts, config = _setup(fresh_cluster, tmp_path)
    hosts.known_hosts_path.unlink(missing_ok=True)
    assert main(["--lang", "en", "--config", str(config), "init-host-keys"]) == 0
    assert _mode(hosts.known_hosts_path) == 0o600
    assert hosts.known_hosts_path.read_text() == hosts.node("node1").known_hosts_line() + "\n"


@pytest.mark.parametrize("line", [
    "export PATH=$HOME/bin:$PATH",
    "alias ll='ls -l'",
    "host ssh-ed25519 notbase64!",
    "host ssh-ed25519 AAAA",  # base64, but not a key blob
    "@nosuchmarker host ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==",
    "host ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIA==",  # an ed25519 blob named ssh-rsa
    "a b",
    "[$(touch x)] ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==",
])
def test_lines_that_are_not_entries(line: str) -> None:
    assert not is_known_hosts_entry(line)


def test_every_kind_of_entry_is_one() -> None:
    for line in (_key_line("node1"), _key_line("[10.0.0.1]:2222,10.0.0.1"),
                 _key_line("!bad.lab,*.lab", "@cert-authority "),
                 _key_line("|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg="),
                 _key_line("[::1]:22", "@revoked ")):
        assert is_known_hosts_entry(line), line
