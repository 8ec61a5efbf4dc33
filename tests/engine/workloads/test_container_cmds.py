"""shell, inspect and restart on the real test bed (sshd + a dockerd per node): the
shell runs in the container through the node's SSH, inspect masks secrets in every
form, restart replaces the group's containers or changes nothing when not confirmed."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from container_support import ENV, SECRET, no_secret, read_until
from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.exitcodes import ExitCode
from sparktui.scrub import STARS

# A look-alike, not the real vLLM (tests/lookalike.py): shell/inspect/restart per recipe env and
# args, a restart per case; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)


def _sparktui(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sparktui", *args], text=True,
                          capture_output=True, timeout=120, env={**os.environ}, **kw)


def _sparktui_labels(node, name: str = "sparktui-toy") -> dict[str, str]:
    labels = node.containers()[name]["Config"]["Labels"]
    return {k: v for k, v in labels.items() if k.startswith("sparktui.")}


def test_inspect_masks_secrets_in_every_form_and_shows_the_rest(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(env=ENV))
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    capsys.readouterr()
    try:
        assert main(s.cli("inspect", "--node", "node2")) == ExitCode.OK
        text = capsys.readouterr().out
        no_secret(text)
        assert f"HF_TOKEN={STARS}" in text and f"DB_PASSWORD={STARS}" in text
        assert "SHOWN_VALUE=plain-value-42" in text
        image_id = s.hosts.node("node2").containers()["sparktui-toy"]["Image"]
        assert image_id in text and "sparktui.recipe = toy" in text
        assert "vllm serve org/toy" in text  # the command line
        assert main(s.cli("inspect", "--node", "node1", "toy", "--json")) == ExitCode.OK
        raw = capsys.readouterr().out
        no_secret(raw)
        env = json.loads(raw)["Config"]["Env"]
        assert f"HF_TOKEN={STARS}" in env and "SHOWN_VALUE=plain-value-42" in env
        # the container itself has the real value: only what is shown is masked
        real = s.hosts.node("node1").containers()["sparktui-toy"]["Config"]["Env"]
        assert f"HF_TOKEN={SECRET}" in real
        assert main(s.cli("inspect", "other")) == ExitCode.FAILED
        assert "no running sparktui container on node1" in capsys.readouterr().err
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK


ODD_ENV = ('HF_TOKEN = "null"\nVLLM_API_KEY = "ab"\nOPENAI_APIKEY = "sk-openai-value-1"\n'
           'AWS_SESSION_TOKEN_V2 = "aws-session-value-2"\n'
           'DATABASE_URL = "postgres://u:pw@db.local/x"\nSHOWN_VALUE = "plain-value-42"')


def test_inspect_masks_json_words_short_values_and_every_secret_name(site, capsys):
    """A secret equal to a JSON word (it crashed inspect, which masked the JSON text and
    parsed it again), values under 4 characters, names the old rule missed, a URL's
    password and an --api-key argument: masked by their fields on the real container."""
    s = site(2)
    s.recipe("toy", toy_recipe(nodes=1, env=ODD_ENV, extra='args = ["--api-key", "k9"]'))
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    capsys.readouterr()
    try:
        assert main(s.cli("inspect", "--node", "node1", "toy", "--json")) == ExitCode.OK
        raw = json.loads(capsys.readouterr().out)
        env = raw["Config"]["Env"]
        for name in ("HF_TOKEN", "VLLM_API_KEY", "OPENAI_APIKEY", "AWS_SESSION_TOKEN_V2"):
            assert f"{name}={STARS}" in env, name
        assert f"DATABASE_URL=postgres://u:{STARS}@db.local/x" in env
        assert "SHOWN_VALUE=plain-value-42" in env
        args = raw["Args"]
        assert args[args.index("--api-key") + 1] == STARS
        assert main(s.cli("inspect", "--node", "node1", "toy")) == ExitCode.OK
        text = capsys.readouterr().out
        for shown in ("sk-openai-value-1", "aws-session-value-2", ":pw@", "VLLM_API_KEY=ab",
                      "--api-key k9", "HF_TOKEN=null"):
            assert shown not in text, shown
        assert f"--api-key '{STARS}'" in text and "SHOWN_VALUE=plain-value-42" in text
        real = s.hosts.node("node1").containers()["sparktui-toy"]
        assert "HF_TOKEN=null" in real["Config"]["Env"] and "k9" in real["Args"]
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK


def test_shell_runs_in_the_container_headless_and_on_a_terminal(site):
    s = site(2)
    s.recipe("toy", toy_recipe(env='SHOWN_VALUE = "plain-value-42"'))
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    try:
        done = _sparktui(*s.cli("shell", "--node", "node2", "--command",
                                'echo "in:$SHOWN_VALUE:$((6*7))"; exit 7'),
                         stdin=subprocess.DEVNULL)
        assert done.returncode == 7, done.stderr  # the shell's own exit code
        assert "in:plain-value-42:42" in done.stdout
        execs = [a for a in s.hosts.recorded_docker("node2") if a[:2] == ["docker", "exec"]]
        assert execs[-1][:4] == ["docker", "exec", "-i", "sparktui-toy"]
        # on a terminal: docker exec -it through ssh -t, an interactive shell
        main_fd, child_fd = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "sparktui",
                                 *s.cli("shell", "--node", "node1", "toy")],
                                stdin=child_fd, stdout=child_fd, stderr=child_fd,
                                env={**os.environ}, start_new_session=True)
        os.close(child_fd)
        try:
            os.write(main_fd, b"echo tty-$((6*7))-$SHOWN_VALUE; exit 3\n")
            read_until(main_fd, b"tty-42-plain-value-42")
            assert proc.wait(60) == 3
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main_fd)
        execs = [a for a in s.hosts.recorded_docker("node1") if a[:2] == ["docker", "exec"]]
        assert execs[-1][:4] == ["docker", "exec", "-it", "sparktui-toy"]
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK


def test_shell_without_a_container_says_so(site):
    s = site(2)
    done = _sparktui(*s.cli("shell", "--command", "true"), stdin=subprocess.DEVNULL)
    assert done.returncode == ExitCode.FAILED
    assert "no running sparktui container on node1" in done.stderr
    done = _sparktui(*s.cli("shell", "--node", "nodeX"), stdin=subprocess.DEVNULL)
    assert done.returncode == ExitCode.BAD_INPUT and "has no node 'nodeX'" in done.stderr


def test_restart_replaces_the_containers_and_unconfirmed_changes_nothing(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    nodes = [s.hosts.node("node1"), s.hosts.node("node2")]
    before = {n.name: n.containers()["sparktui-toy"]["Id"] for n in nodes}
    labels = {n.name: _sparktui_labels(n) for n in nodes}
    try:
        capsys.readouterr()
        assert main(s.cli("restart", "toy")) == ExitCode.REFUSED  # no --yes, no terminal
        assert "refusing to restart without confirmation" in capsys.readouterr().err
        assert {n.name: n.containers()["sparktui-toy"]["Id"] for n in nodes} == before
        assert main(s.cli("restart", "toy", "--yes")) == ExitCode.OK
        assert "serving toy on test" in capsys.readouterr().out
        after = {n.name: n.containers()["sparktui-toy"] for n in nodes}
        for n in nodes:
            assert after[n.name]["Id"] != before[n.name]
            assert after[n.name]["State"]["Status"] == "running"
            now = _sparktui_labels(n)
            # the same labels, but a run id of the new container's own (issue 28)
            assert now.pop("sparktui.run") != labels[n.name]["sparktui.run"]
            assert now == {k: v for k, v in labels[n.name].items() if k != "sparktui.run"}
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK


def test_restart_whose_serve_fails_says_the_recipe_is_down(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == ExitCode.OK
    # the same plan no longer starts: its image is gone from node2
    s.hosts.node("node2").remove_image("vllm:test")
    capsys.readouterr()
    try:
        assert main(s.cli("restart", "toy", "--yes")) == ExitCode.FAILED
        err = capsys.readouterr().err
        assert "toy is DOWN on test" in err
        assert "sparktui-toy" not in s.hosts.node("node1").containers()
        # why, in the words serve itself says it (one line for both: serve_failed_line)
        said = [line for line in err.splitlines() if line.startswith("serve failed on node2")]
        assert len(said) == 1, err
        assert main(s.cli("serve", "toy")) != ExitCode.OK
        assert said[0] in capsys.readouterr().err.splitlines()
    finally:
        main(s.cli("stop", "--yes"))
