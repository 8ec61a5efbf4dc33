"""The tmux runtime when things fail (#29 item 9): ``sparktui tmux`` with the node's docker
down still finds the node's sessions (tmux needs no docker) and says what is true, no
traceback; an engine that dies at start is shown with its last output and exit status."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from lookalike import Why
from plan_support import subprocess_env
from test_tmux import VLLM

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): engines that die at start or exit on cue in
# a tmux pane.
LOOKALIKE = (Why.FAULT, Why.SPEED)


def _sparktui(s, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sparktui", *s.cli(*args)],
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=subprocess_env())


def test_tmux_with_the_nodes_docker_down_and_no_session(fresh_site, capsys):
    s = fresh_site(1)
    s.hosts.node("node1").docker_down()
    assert main(s.cli("tmux")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "no sparktui tmux session on node1" in err, err


def test_tmux_with_the_nodes_docker_down_attaches_to_its_session(fresh_site, tmp_path,
                                                                  capsys):
    s = fresh_site(1)
    vllm = tmp_path / "vllm"
    vllm.write_text(VLLM)
    vllm.chmod(0o755)
    s.recipe("host", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30025", f'entrypoint = ["{vllm}", "serve"]']) + "\n")
    assert main(s.cli("serve", "host")) == 0, capsys.readouterr().err
    s.hosts.node("node1").docker_down()
    done = _sparktui(s, "tmux")  # no terminal here: tmux attach itself refuses
    assert "Traceback" not in done.stderr, done.stderr
    assert "no sparktui tmux session" not in done.stderr
    assert "terminal" in done.stderr, done.stderr  # tmux's own "not a terminal"


def test_tmux_with_the_node_down_names_it(fresh_site, capsys):
    s = fresh_site(1)
    s.hosts.node("node1").kill()
    assert main(s.cli("tmux")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("node1: "), err


def _recipe(s, name: str, port: int, entrypoint: str) -> None:
    s.recipe(name, "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        f"port = {port}", f"entrypoint = {entrypoint}"]) + "\n")


def test_an_engine_that_dies_at_start_shows_its_pane_and_exit_status(site, capsys):
    """It wrote to its terminal, not to the log, and exited 7: its kept pane
    (remain-on-exit) has the line and the status; the serve says both, then removes it."""
    s = site(1)
    _recipe(s, "tty", 30026,
            '["sh", "-c", "echo ERROR straight to the terminal > /dev/tty; exit 7"]')
    assert main(s.cli("serve", "tty")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "ERROR straight to the terminal" in err, err
    assert "sparktui-tty is exited 7" in err, err
    assert s.hosts.ssh("node1", "tmux ls 2>/dev/null; true").stdout == ""  # removed


def test_an_engine_that_exits_is_listed_exited_with_its_status(site, capsys):
    """Kept for a post-mortem, the ended session is listed as docker lists an exited
    container: state, status and exit code, and stop removes it."""
    s = site(1)
    _recipe(s, "ends", 30027, '["sh", "-c", "echo ERROR gone; exit 5"]')
    assert main(s.cli("serve", "ends", "--keep-on-failure")) == 1
    err = capsys.readouterr().err
    assert "ERROR gone" in err and "sparktui-ends is exited 5" in err, err

    async def look():
        e = s.engine()
        try:
            return await e.workloads("test", "node1")
        finally:
            await e.close()

    found = [w for w in asyncio.run(look()) if w.name == "sparktui-ends"]
    assert [(w.state, w.status, w.exit_code) for w in found] == [("exited", "exited (5)", 5)]
    assert main(s.cli("stop", "--yes")) == 0
    assert s.hosts.ssh("node1", "tmux ls 2>/dev/null; true").stdout == ""


def test_a_terminal_tmux_service_ends_the_run_with_its_exit_code(site, capsys):
    """Its pane kept, a tmux instance has an exit code as a container has (it counted as 0:
    a failed job read as a success)."""
    s = site(1)
    s.recipe("job", """\
docker_image = "unused"

[frontend]
type = "none"

[[services]]
name = "job"
runtime = "tmux"
terminal = true
command = ["sh", "-c", "echo job ran; exit 3"]
""")
    assert main(s.cli("serve", "job")) == 3
    out = capsys.readouterr().out
    assert "exited 3" in out, out
    assert main(s.cli("stop", "--yes")) == 0
    assert s.hosts.ssh("node1", "tmux ls 2>/dev/null; true").stdout == ""
