"""After ``init-host-keys`` the exported ``plan -f sh`` script reaches the nodes.

The script passes sparktui's own known_hosts (``known_hosts_path``, default
``~/.config/sparktui/known_hosts``) to OpenSSH with strict checking; before, it
left OpenSSH on ``~/.ssh/known_hosts`` and every line failed host key verification.
Real sshd test hosts, the real OpenSSH client, the script run by ``sh``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from lookalike import Why
from plan_support import run_module

# A look-alike, not the real vLLM (tests/lookalike.py): the exported sh script starts a 2-node TP
# group.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

RECIPE = """\
engine = "vllm"
docker_image = "vllm:test"
model = "org/toy"
required_nodes = 2
tensor_parallel_size = 2
before_serve = ["echo REACHED-$SSH_CONNECTION_MARK-ok"]
"""


def test_the_sh_plan_runs_after_init_host_keys(test_cluster, tmp_path: Path) -> None:
    hosts = test_cluster(2)
    config = hosts.write_config(tmp_path / "config.toml")
    text = config.read_text()
    config.write_text("".join(line for line in text.splitlines(keepends=True)
                              if not line.startswith("known_hosts_path")))  # the default
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "recipes" / "hook").mkdir(parents=True)
    (tmp_path / "recipes" / "hook" / "recipe.toml").write_text(RECIPE)
    recorded = run_module(["--config", str(config), "init-host-keys"], cwd=tmp_path,
                          HOME=str(home))
    assert recorded.returncode == 0, recorded.stderr
    assert (home / ".config" / "sparktui" / "known_hosts").is_file()
    plan = run_module(["--config", str(config), "--recipes", str(tmp_path / "recipes"), "plan",
                       "hook", "-f", "sh"], cwd=tmp_path, HOME=str(home))
    assert plan.returncode == 0, plan.stderr
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.run(["sh"], input=plan.stdout, cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=120, check=False)
    assert "Host key verification failed" not in proc.stderr
    assert proc.stdout.count("REACHED--ok") == 2, (proc.stdout, proc.stderr)
