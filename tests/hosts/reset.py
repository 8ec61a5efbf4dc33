"""What a cluster lent to one test looks like when the next one gets it (pool.py):

- every node's sshd up on its port with its first host keys and config, and no SSH
  connection (the test's sessions and whatever they started die with them);
- no container on any node's dockerd, no process of a node or of its containers, no
  tmux server; the images the next test asks for (default: DEFAULT_IMAGES);
- each node's state folder holds only what the node made: knobs (engine.json, gpu.json,
  power.json, meminfo, disk-free), records (docker-argv/, sudo-, power-argv.jsonl), kernel.log /
  kernel.deny and anything else a test wrote are gone; its home holds its three shell
  files, as written;
- the cluster's folder: no known_hosts file, the stand-ins and authorized_keys as
  installed, nothing else a test wrote.

Cheap on purpose (a reset is paid by every test that uses hosts): one process table
scan, files rewritten only when they differ, sshd restarted only when it has to be.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from . import procs

NODE_FILES = {"home", "tmux", "sshd_config", "sshd.log", "sshd.pid"}
CLUSTER_FILES = {"id_ed25519", "id_ed25519.pub", "authorized_keys", "bin", "owner.json"}


def reset_cluster(cluster: Any) -> None:
    kids = procs.children_map()
    for node in cluster.nodes:
        _reset_node(node, kids)
    # what is left of the nodes' sessions, containers and tmux servers
    procs.kill_env_matching("SPARKTUI_NODE_STATE", str(cluster.root))
    for node in cluster.nodes:
        _clear_state(node)
        node.set_images(cluster.images)
    keep = CLUSTER_FILES | {node.name for node in cluster.nodes}
    for path in cluster.root.iterdir():
        if path.name not in keep:
            remove_path(path)
    _write_if_changed(cluster.authorized_keys, cluster.key_path.with_name("id_ed25519.pub")
                      .read_text())
    _repair_standins(cluster)
    for node in cluster.nodes:
        node.start()  # when down (or stopped above): same port, same key


def _reset_node(node: Any, kids: dict[int, list[int]]) -> None:
    """End the node's connections, containers and tmux server; stop its sshd when its
    host key or config changed on disk (reset_cluster starts it again)."""
    if node._stopped:  # hung: let its processes die
        node.resume()
    node.docker_up()
    vars(node).pop("_write_sshd_config", None)  # a test's override of the writer
    changed = False
    for path, data in node.host_keys.items():
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            path.chmod(0o600 if path == node.host_key_path else 0o644)
            changed = True
    config = node.sshd_config_text()
    changed |= _write_if_changed(node.config_path, config)
    if changed or not node.running:
        node._kill_listener(connections=True)
        node.proc = None
    else:  # the listener stays; the test's connections end
        pids = _tree(node.proc.pid, kids)
        procs.signal_pids(pids, signal.SIGKILL)
        procs.wait_dead(pids, 5)
    node._kill_orphans()
    node.remove_containers()
    tmux = node.state_dir / "tmux"
    if any(tmux.iterdir()) and shutil.which("tmux"):
        subprocess.run(["tmux", "-L", "default", "kill-server"],
                       env={**os.environ, "TMUX_TMPDIR": str(tmux)}, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=10, check=False)


def _clear_state(node: Any) -> None:
    keep = NODE_FILES | {path.name for path in node.host_keys}
    for path in node.state_dir.iterdir():
        if path.name not in keep:
            remove_path(path)
    tmux = node.state_dir / "tmux"
    for path in tmux.iterdir():
        remove_path(path)
    tmux.chmod(0o700)
    node.home.mkdir(exist_ok=True)
    files = node.home_files()
    for path in node.home.iterdir():
        if path.name not in files:
            remove_path(path)
    for name, text in files.items():
        _write_if_changed(node.home / name, text)


def _repair_standins(cluster: Any) -> None:
    wanted = cluster.standins()
    for path in cluster.bin_dir.iterdir():
        if path.name not in wanted:
            remove_path(path)
    for name, text in wanted.items():
        path = cluster.bin_dir / name
        if text.startswith("->"):
            if not (path.is_symlink() and os.readlink(path) == text[2:]):
                remove_path(path)
                path.symlink_to(text[2:])
            continue
        _write_if_changed(path, text)
        if path.stat().st_mode & 0o777 != 0o755:
            path.chmod(0o755)


def _tree(pid: int, kids: dict[int, list[int]]) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _write_if_changed(path: Path, text: str) -> bool:
    try:
        if not path.is_symlink() and path.read_text() == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    remove_path(path)
    path.write_text(text)
    return True


def remove_path(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
