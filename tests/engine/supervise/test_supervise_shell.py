"""Supervision's shell lines, run by a real sh in a home of their own (no hosts needed):
the lease is taken once, renewed only by its holder, taken over only when its heartbeat
is old; marks are appended and cut; the on-node files are what the head needs."""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from pathlib import Path

from supervise_support import sh

from sparktui.config.loader import load_config
from sparktui.config.models import Config
from sparktui.engine.supervise import on_node, shell
from sparktui.engine.supervise.record import Lease, Mark, parse_status

__all__ = ["sh"]  # a fixture, used by name


def _lease(token: str, ttl: int = 30) -> Lease:
    return Lease(token, ttl, f"ops@laptop ({token})", "c", "r")


def test_the_lease_is_taken_once_and_renewed_only_by_its_holder(sh):
    first, second = _lease("aaa"), _lease("bbb")
    assert sh(shell.acquire("aaa", 30), first.text()).stdout == "taken\n"
    held = sh(shell.acquire("bbb", 30), second.text()).stdout
    assert held.startswith("held ") and Lease.parse(held.split("\n", 1)[1]) == first
    assert sh(shell.acquire("aaa", 30), first.text()).stdout == "taken\n"  # its own again
    assert sh(shell.renew("aaa")).stdout == "ok\n"
    lost = sh(shell.renew("bbb")).stdout
    assert lost.startswith("lost\n") and Lease.parse(lost[5:]) == first
    sh(shell.release("bbb"))  # not its lease: nothing happens
    assert (sh.home / "lease").exists()
    sh(shell.release("aaa"))
    assert not (sh.home / "lease").exists()


def test_a_lease_whose_heartbeat_is_older_than_its_ttl_is_taken_over(sh):
    assert sh(shell.acquire("aaa", 5), _lease("aaa", 5).text()).stdout == "taken\n"
    old = time.time() - 10
    os.utime(sh.home / "lease", (old, old))
    status = parse_status("n1", sh(shell.read_status()).stdout)
    assert status.state == "lost" and status.lease_age >= 10
    assert sh(shell.acquire("bbb", 5), _lease("bbb", 5).text()).stdout == "taken\n"
    assert sh(shell.renew("aaa")).stdout.startswith("lost")


def test_two_supervisors_starting_at_once_cannot_both_take_the_lease(sh):
    procs = [subprocess.Popen(["sh", "-c", shell.acquire(tok, 30)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True,
                              env={"HOME": str(sh.home.parents[3]), "PATH": os.environ["PATH"]})
             for tok in ("t1", "t2", "t3", "t4")]
    outs = [p.communicate(_lease(tok).text(), timeout=30)[0]
            for p, tok in zip(procs, ("t1", "t2", "t3", "t4"), strict=True)]
    assert sum(out == "taken\n" for out in outs) == 1, outs


def test_a_lock_not_had_in_time_is_an_error_and_the_lease_is_left_alone(sh, monkeypatch):
    assert sh(shell.acquire("aaa", 30), _lease("aaa").text()).stdout == "taken\n"
    monkeypatch.setattr(shell, "LOCK_WAIT", 1)
    with open(sh.home / "lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another line holds the lock and does not let go
        busy = sh(shell.acquire("bbb", 30), _lease("bbb").text())
        mark = sh(shell.append_mark(), Mark("m", "stop", "c").line())
    assert busy.returncode != 0 and "lock busy" in busy.stderr and "taken" not in busy.stdout
    assert mark.returncode != 0 and not (sh.home / "marks.jsonl").exists()
    assert Lease.parse((sh.home / "lease").read_text()) == _lease("aaa")
    assert sorted(p.name for p in sh.home.iterdir()) == ["lease", "lock"]  # no stdin left


def test_state_is_replaced_whole_and_nothing_there_reads_as_none(sh):
    assert parse_status("n1", sh(shell.read_status()).stdout).state == "none"
    assert sh(shell.write_state(), '{"status": "gave_up", "recipe": "r"}\n').returncode == 0
    status = parse_status("n1", sh(shell.read_status()).stdout)
    assert status.state == "gave_up" and status.record.recipe == "r"


def test_marks_are_appended_and_the_file_is_cut_when_it_grew_long(sh):
    for i in range(shell.MARKS_KEPT + 5):
        assert sh(shell.append_mark(), Mark(f"m{i}", "stop", "c").line()).returncode == 0
    marks = Mark.parse_lines(sh(shell.read_marks()).stdout)
    assert shell.MARKS_KEPT // 2 <= len(marks) <= shell.MARKS_KEPT
    assert marks[-1].id == f"m{shell.MARKS_KEPT + 4}"
    assert Mark.parse_lines(subprocess.run(["sh", "-c", shell.read_marks()],
                                           env={"HOME": "/nonexistent", "PATH": "/bin"},
                                           capture_output=True, text=True).stdout) == []


CONFIG = """
ssh_user = "ops"
ssh_key_path = "~/.ssh/laptop_key"
supervise_interval_seconds = 3
[[clusters]]
name = "pair"
nodes = [{ name = "s1", ssh_ip = "10.0.0.1", rank = 0 },
         { name = "s2", ssh_ip = "10.0.0.2", rank = 1 }]
[[clusters]]
name = "other"
nodes = [{ name = "s9", ssh_ip = "10.0.0.9", rank = 0 }]
[nccl.pair]
ib_hca = "rocep1s0f0"
[before_serve.pair]
commands = ["echo hi", { script = "stop_dgx_services", on_failure = "warn" }]
[mount_aliases]
hf_cache = "/mnt/hf"
[home_assistant]
url = "http://ha.local:8123"
token = "tok-Secret-Of-The-Laptop-1234"
"""


def _config(tmp_path: Path) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    return load_config(path).config


def test_supervisions_files_are_its_owners_only_whatever_the_umask(sh):
    """The state holds log lines: its folder is 0700 and its files 0600, a folder made
    open by an earlier version is closed, under the node's umask 022."""
    sh.home.mkdir(parents=True, mode=0o755)
    os.chmod(sh.home, 0o755)
    for line, stdin in ((shell.acquire("aaa", 30), _lease("aaa").text()),
                        (shell.write_state(), '{"restarts": []}'),
                        (shell.append_mark(), Mark("m", "stop", "c").line())):
        assert sh("umask 022; " + line, stdin).returncode == 0
    assert sh.home.stat().st_mode & 0o777 == 0o700
    modes = {p.name: p.stat().st_mode & 0o777 for p in sh.home.iterdir()}
    assert {"lease", "state.json", "marks.jsonl", "lock"} <= set(modes), modes
    assert set(modes.values()) == {0o600}, modes


def test_the_heads_config_has_its_cluster_and_no_secret(tmp_path):
    config = _config(tmp_path)
    text = on_node.config_text(config, config.cluster("pair"))
    assert "tok-Secret" not in text and "home_assistant" not in text and "s9" not in text
    head = tmp_path / "head.toml"
    head.write_text(text)
    copy = load_config(head).config
    assert [c.name for c in copy.clusters] == ["pair"]
    assert copy.cluster("pair") == config.cluster("pair")
    assert copy.nccl == {"pair": config.nccl["pair"]}
    assert copy.before_serve == {"pair": config.before_serve["pair"]}
    assert copy.ssh_key_path == on_node.KEY_MOUNT and copy.home_assistant is None
    assert copy.supervise_interval_seconds == 3 and copy.hf_cache_host == "/mnt/hf"


def test_the_supervisor_container_is_one_argv_with_every_value_its_own_argument():
    argv = on_node.run_argv(cluster="pair", recipe="glm; rm -rf /", home="/home/ops/x y",
                            key="/home/ops/.ssh/id", image="sparktui-supervisor:1",
                            interval=2.5)
    assert argv[:5] == ["docker", "run", "-d", "--name", "sparktui-supervise-pair"]
    assert "sparktui.supervisor_recipe=glm; rm -rf /" in argv  # one argument, verbatim
    assert "/home/ops/x y/on-node:/etc/sparktui:ro" in argv
    at = argv.index("sparktui-supervisor:1")
    assert argv[at + 1:] == ["--config", "/etc/sparktui/config.toml", "--recipes",
                             "/etc/sparktui/recipes", "supervise", "glm; rm -rf /",
                             "--cluster", "pair", "--mode", "on-node", "--interval", "2.5"]
    assert argv[argv.index("--restart"):argv.index("--restart") + 2] == ["--restart", "no"]


def test_removal_finds_the_container_by_its_labels_and_tolerates_a_node_without_docker(sh):
    command = on_node.remove_command("pair", "glm")
    assert "label=sparktui.supervisor=pair" in command
    assert "label=sparktui.supervisor_recipe=glm" in command
    no_docker = subprocess.run(["/bin/sh", "-c", command], env={"PATH": "/nonexistent"},
                               capture_output=True, text=True, timeout=30)
    assert no_docker.returncode == 0 and no_docker.stdout == ""


def test_removal_says_when_the_nodes_docker_does_not_answer(tmp_path):
    # a docker whose daemon is down: the listing fails, which is not "none there"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\n"
                                    "exit 1\n")
    (bin_dir / "docker").chmod(0o755)
    command = on_node.remove_command("pair", None)
    down = subprocess.run(["/bin/sh", "-c", command],
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=30)
    assert down.returncode == on_node.UNREACHABLE_EXIT
    assert "Cannot connect" in down.stderr and down.stdout == ""
