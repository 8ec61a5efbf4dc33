"""The lying node's bench itself (tests/hosts/lying.py): a liar answers each kind of
command from the test's files and runs none of them, bounds an endless answer, and
records what it was asked; an honest node runs what it is asked and records it; the
liar's engine port answers what the test set, raw."""

from __future__ import annotations

import socket
import subprocess
import urllib.request

from hosts.lying import KINDS, Answer, HonestNode, HttpLie, LyingNode, classify, lying_http
from lookalike import Why
from lying_strategies import PLANTED
from lying_support import LIAR_PORT, PLANTED_MARK, run_cli

from sparktui.plan.runtime.docker import ENDPOINT, Docker
from sparktui.plan.runtime.listing import list_all_command

# A look-alike, not the real vLLM (tests/lookalike.py): these tests check the liar's engine port
# itself.
LOOKALIKE = (Why.FAULT, Why.TESTBED)


def test_commands_are_classified_by_what_they_are_for():
    docker = Docker()
    assert classify(ENDPOINT) == "endpoint"
    assert classify(docker.list_command()) == "docker_list"
    assert classify(list_all_command(("tmux",))) == "tmux_list"
    assert classify(docker.state_command("x")) == "state"
    assert classify(docker.logs_command("x", 5, False)) == "logs"
    assert classify(docker.signal_command("x")) == "signal"
    removal = docker.removal("x", 3)
    assert (classify(removal.stop or ""), classify(removal.remove)) == ("stop", "remove")
    assert classify(PLANTED) == "other"
    assert classify("docker rm -f x") in KINDS


def test_a_liar_answers_from_files_and_runs_nothing(fresh_cluster):
    cluster = fresh_cluster(2)
    liar = LyingNode(cluster.node("node2"))
    honest = HonestNode(cluster.node("node1"))
    try:
        liar.tell({"docker_list": Answer(b"[\x1b]", exit=3), "other": Answer(b"x", repeat=4),
                   "logs": Answer(b"y" * 1000, repeat=None)})
        listed = cluster.ssh("node2", Docker().list_command())
        assert (listed.returncode, listed.stdout) == (3, "[\x1b]")
        assert cluster.ssh("node2", PLANTED).stdout == "xxxx"
        with subprocess.Popen(cluster.ssh_argv("node2", "exec docker logs --tail 5 x 2>&1"),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE) as endless:
            assert endless.stdout is not None
            sizes, seen = 0, set()
            while chunk := endless.stdout.read(1 << 20):  # ends: the liar bounds it
                sizes += len(chunk)
                seen |= set(chunk)
        assert sizes > 1_000_000 and seen == {ord("y")}
        assert liar.asked() == [Docker().list_command(), PLANTED,
                                "exec docker logs --tail 5 x 2>&1"]
        assert not PLANTED_MARK.exists()  # told, never run
        liar.tell({})
        assert cluster.ssh("node2", "echo hi").stdout == ""  # no answer is set: none
        assert liar.asked() == ["echo hi"]
        ran = cluster.ssh("node1", "echo hi; echo $SPARKTUI_NODE_NAME")
        assert ran.stdout == "hi\nnode1\n"
        assert honest.asked() == ["echo hi; echo $SPARKTUI_NODE_NAME"]
        honest.forget()
        assert honest.asked() == []
    finally:
        liar.close()


def test_the_liars_engine_port_says_what_it_is_told(fresh_cluster):
    cluster = fresh_cluster(1)
    node = cluster.node("node1")
    server = lying_http(node, LIAR_PORT)
    try:
        server.answers["/v1/models"] = HttpLie(b'{"data": []}')
        url = f"http://{node.addr}:{LIAR_PORT}"
        assert urllib.request.urlopen(f"{url}/v1/models", timeout=30).read() == b'{"data": []}'
        server.answers["/metrics"] = HttpLie(b"garbage", b"")
        with socket.create_connection((node.addr, LIAR_PORT), timeout=30) as conn:
            conn.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
            assert conn.recv(100) == b"garbage"
        assert server.paths == ["/v1/models", "/metrics"]
    finally:
        server.close()


def test_a_run_reports_its_own_peak_memory():
    ran = run_cli("--version")
    assert ran.code == 0 and not ran.problems()
    assert 5_000 < ran.peak_kb < 200_000
