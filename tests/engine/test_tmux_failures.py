"""The tmux runtime when things fail (#29 item 9): ``sparktui tmux`` with the node's docker
down still finds the node's sessions (tmux needs no docker) and says what is true, no
traceback; an engine that dies at start is shown with its last output and exit status."""

from __future__ import annotations

import subprocess
import sys

from plan_support import subprocess_env
from test_tmux import VLLM

from sparktui.cli import main


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
