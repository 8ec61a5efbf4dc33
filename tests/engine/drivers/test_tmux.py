"""The tmux runtime: the engine runs in a tmux session on each host, no container."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
from pathlib import Path

from lookalike import Why
from polling import eventually

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): the engine on the host in tmux, a 2-node
# group with a headless worker.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

FAKE_ENGINE = (Path(__file__).resolve().parents[2] / "hosts" / "testimage" / "sparktest"
               / "http_engine.py")

# A host-installed `vllm` for the test nodes: the head serves the fake engine's API on
# its --port; a --headless worker just prints and waits, like a real worker.
VLLM = f"""#!{sys.executable}
import os, sys, time
args = sys.argv[1:]
model = args[1] if len(args) > 1 else "model"
print("INFO vllm stand-in starting on", os.environ.get("SPARKTUI_NODE_NAME"),
      "VLLM_HOST_IP=" + os.environ.get("VLLM_HOST_IP", ""), flush=True)
if "--headless" in args:
    while True:
        print("INFO worker alive", flush=True)
        time.sleep(0.5)
port = args[args.index("--port") + 1]
os.execv(sys.executable, [sys.executable, {str(FAKE_ENGINE)!r}, "--model", model,
                          "--port", port])
"""


def test_tmux_runtime_serve_health_logs_stop(site, tmp_path, capsys):
    s = site(2)
    vllm = tmp_path / "vllm"
    vllm.write_text(VLLM)
    vllm.chmod(vllm.stat().st_mode | stat.S_IEXEC)
    s.recipe("host", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30021", "required_nodes = 2", "tensor_parallel_size = 2",
        f'entrypoint = ["{vllm}", "serve"]']) + "\n")
    assert main(s.cli("serve", "host")) == 0, capsys.readouterr().err
    for node in ("node1", "node2"):
        sessions = s.hosts.ssh(node, "tmux ls -F '#{session_name}'").stdout.split()
        assert sessions == ["sparktui-host"]
        # docker is only asked what other recipes run there (ports, memory shares):
        # through its API, after asking once where its socket is (or through the CLI)
        asked = [a[:2] for a in s.hosts.recorded_docker(node)]
        assert set(map(tuple, asked)) <= {("docker", "context"), ("docker", "ps"),
                                          ("docker", "inspect")}, asked
        env = s.hosts.ssh(node, "tmux show-environment -t sparktui-host VLLM_HOST_IP").stdout
        assert env.strip() == f"VLLM_HOST_IP={s.hosts.node(node).addr}"

    async def look():
        e = s.engine()
        try:
            health = await e.health("test")
            lines = []
            stream = e.logs("test", tail=50, follow=True)
            async for line in stream:
                lines.append(line)
                if {x.node for x in lines if "stand-in starting" in x.text} == {"node1", "node2"}:
                    break
            await stream.aclose()
            return health, lines
        finally:
            await e.close()

    health, lines = asyncio.run(asyncio.wait_for(look(), 30))
    assert {w.runtime for w in health.workloads} == {"tmux"}
    assert {(w.node, w.role) for w in health.workloads} == {("node1", "head"),
                                                            ("node2", "worker")}
    assert health.serving and health.nodes[0].engine.models == ["org/toy"]
    assert any("VLLM_HOST_IP=" in x.text for x in lines)

    assert main(s.cli("stop", "--yes")) == 0
    for node in ("node1", "node2"):
        eventually(lambda n=node: "sparktui-host" not in s.hosts.ssh(
            n, "tmux ls 2>/dev/null; true").stdout, 15, f"session gone on {node}")


# Records what it was given, then serves like the head above.
RECORDER = f"""#!{sys.executable}
import json, os, sys
with open(os.path.join(os.environ["HOME"], "given.json"), "w") as f:
    json.dump({{"argv": sys.argv[1:], "V": os.environ.get("V")}}, f)
port = sys.argv[sys.argv.index("--port") + 1]
os.execv(sys.executable, [sys.executable, {str(FAKE_ENGINE)!r}, "--model", "m", "--port", port])
"""


def test_values_reach_a_tmux_engine_verbatim(site, tmp_path):
    """An argument or env value ending in ";" is a tmux command separator unless escaped:
    `args = ["x;", "run-shell", ...]` ran run-shell on the node."""
    s = site(1)
    script = tmp_path / "recorder"
    script.write_text(RECORDER)
    script.chmod(0o755)
    marker = tmp_path / "pwned"
    args = ["--x", "x;", "run-shell", f"touch {marker}", "--y", "a\\;", "--z", ";"]
    s.recipe("host", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30022", f'entrypoint = ["{script}", "serve"]',
        "args = " + json.dumps(args), "", "[env]", 'V = "v;"']) + "\n")
    assert main(s.cli("serve", "host")) == 0
    given = json.loads((s.hosts.node("node1").home / "given.json").read_text())
    assert given["argv"][-len(args):] == args and given["V"] == "v;"
    assert not marker.exists()
    assert main(s.cli("stop", "--yes")) == 0


# Prints its loading lines, then dies before it ever serves, like an engine out of memory.
DIES_LOADING = f"""#!{sys.executable}
import sys
print("INFO loading weights", flush=True)
print("ERROR CUDA out of memory while loading", flush=True)
sys.exit(3)
"""


def test_a_tmux_engine_dying_while_loading_fails_with_its_last_lines(site, tmp_path, capsys):
    """As with docker, the serve that fails says why: the session's last log lines."""
    s = site(1)
    script = tmp_path / "dies"
    script.write_text(DIES_LOADING)
    script.chmod(0o755)
    s.recipe("host", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30023", f'entrypoint = ["{script}", "serve"]']) + "\n")
    assert main(s.cli("serve", "host")) == 1
    err = capsys.readouterr().err
    assert "CUDA out of memory while loading" in err, err
    assert "Traceback" not in err
    eventually(lambda: "sparktui-host" not in s.hosts.ssh(
        "node1", "tmux ls 2>/dev/null; true").stdout, 15, "the session rolled back")


def test_a_tmux_engine_that_fails_at_once_is_still_logged(site, capsys):
    """A command that prints and exits before tmux's pipe-pane could attach (a shell
    builtin, no interpreter to start) still leaves its line in the log: the session's
    command waits until its output is copied (sparktui/plan/runtime/tmux.py)."""
    s = site(1)
    s.recipe("instant", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30024", 'entrypoint = ["sh", "-c", "echo ERROR refused at once; exit 3"]'])
        + "\n")
    assert main(s.cli("serve", "instant")) == 1
    err = capsys.readouterr().err
    assert "ERROR refused at once" in err, err
    assert "Traceback" not in err
