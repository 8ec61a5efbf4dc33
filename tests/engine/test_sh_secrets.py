"""``plan -f sh`` writes no secret in the script, and the script, run with the secrets in
its runner's environment, starts containers that have them: real sshd and dockerd test
hosts, the real OpenSSH client, the script run by ``sh``."""

from __future__ import annotations

import os
import subprocess

from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main
from sparktui.exitcodes import ExitCode
from sparktui.scrub import forms

# A look-alike, not the real vLLM (tests/lookalike.py): the exported sh script starts a 2-node TP
# group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

HF = "hf_Sh-passthrough-secret-4711"
API = "k9"  # short: only its field says it is a secret
ENV = f'HF_TOKEN = "{HF}"\nVLLM_API_KEY = "{API}"\nSHOWN_VALUE = "plain-value-42"'


def test_the_sh_plan_takes_secrets_from_the_environment_and_the_node_gets_them(site, tmp_path):
    s = site(2)
    s.recipe("toy", toy_recipe(env=ENV, extra=f'args = ["--api-key", "{API}"]'))
    script = tmp_path / "plan.sh"
    assert main(s.cli("plan", "toy", "-f", "sh", "-o", str(script))) == ExitCode.OK
    text = script.read_text()
    assert [f for f in forms(HF) if f in text] == []
    assert f"VLLM_API_KEY={API}" not in text and f"--api-key {API}" not in text
    missing = subprocess.run(["sh", str(script)], env={**os.environ}, text=True,
                             capture_output=True, timeout=120, check=False)
    assert missing.returncode != 0 and "HF_TOKEN is not set" in missing.stderr
    assert not s.hosts.node("node1").containers()  # refused before anything ran
    env = {**os.environ, "HF_TOKEN": HF, "VLLM_API_KEY": API,
           "SPARKTUI_SECRET_API_KEY": API}
    done = subprocess.run(["sh", str(script)], env=env, text=True, capture_output=True,
                          timeout=120, check=False)
    try:
        assert done.returncode == 0, done.stderr
        for name in ("node1", "node2"):
            container = s.hosts.node(name).containers()["sparktui-toy"]
            assert f"HF_TOKEN={HF}" in container["Config"]["Env"]
            assert f"VLLM_API_KEY={API}" in container["Config"]["Env"]
            assert "SHOWN_VALUE=plain-value-42" in container["Config"]["Env"]
            args = container["Args"]
            assert args[args.index("--api-key") + 1] == API
            runs = [a for a in s.hosts.recorded_docker(name) if a[:2] == ["docker", "run"]]
            assert HF not in " ".join(runs[-1])  # docker read it from its own environment
            assert "HF_TOKEN" in runs[-1]
    finally:
        assert main(s.cli("stop", "--yes")) == ExitCode.OK
