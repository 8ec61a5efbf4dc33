"""serve details: HF references resolved per node, keep-on-failure, Ctrl+C on logs -f."""

from __future__ import annotations

from lookalike import Why
from polling import eventually
from site_support import interrupt, sparktui_process, toy_recipe

from sparktui.cli import main

LOOKALIKE = (Why.FAULT, Why.SPEED, Why.MULTI_NODE)  # tests/lookalike.py: why not the real vLLM

HF_ARGS = """args = ["--speculative-config", '{"model": "{{draft}}"}']"""
HF_MOUNT = """
[[extra_mounts]]
repo = "org/draft-model"
subfolder = "mtp"
container = "draft"
"""


def _hf_site(site, tmp_path):
    cache = tmp_path / "hf"
    s = site(2, extra_toml=f'[mount_aliases]\nhf_cache = "{cache}"\n')
    s.recipe("toy", toy_recipe(extra=HF_ARGS) + HF_MOUNT)
    return s, cache


def test_serve_resolves_hf_references_to_the_container_path(site, tmp_path):
    s, cache = _hf_site(site, tmp_path)
    repo = cache / "hub" / "models--org--draft-model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd\n")
    (repo / "snapshots" / "0123abcd" / "mtp").mkdir(parents=True)
    assert main(s.cli("serve", "toy")) == 0
    expected = "/root/.cache/huggingface/hub/models--org--draft-model/snapshots/0123abcd/mtp"
    for node in ("node1", "node2"):
        run = next(a for a in s.hosts.recorded_docker(node) if a[:2] == ["docker", "run"])
        assert '{"model": "' + expected + '"}' in run
        assert not any("{{draft}}" in a for a in run)
    assert main(s.cli("stop", "--yes")) == 0


def test_serve_with_a_missing_hf_reference_says_how_to_fetch_it(site, tmp_path, capsys):
    s, _cache = _hf_site(site, tmp_path)
    assert main(s.cli("serve", "toy")) == 1
    err = capsys.readouterr().err
    assert "huggingface-cli download org/draft-model" in err
    assert not any(a[:2] == ["docker", "run"] for a in s.hosts.recorded_docker("node1"))


def test_keep_on_failure_leaves_the_failed_containers_for_a_post_mortem(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe(env='STANDIN_READY_AFTER = "30"\nSTANDIN_EXIT_AFTER = "1"'))
    assert main(s.cli("serve", "toy", "--keep-on-failure")) == 1
    for node in ("node1", "node2"):
        names = s.hosts.ssh(node, "docker ps -a --format '{{.Names}}'").stdout.split()
        assert names == ["sparktui-toy"]
    assert main(s.cli("stop", "--yes")) == 0


def test_ctrl_c_on_logs_follow_detaches_and_leaves_the_container_running(site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe())
    assert main(s.cli("serve", "toy")) == 0
    proc = sparktui_process(*s.cli("logs", "-f"))
    try:
        seen: set[str] = set()
        while not seen >= {"node1", "node2"}:  # until both nodes spoke, or the stream ended
            line = proc.stdout.readline()
            if not line:
                break
            seen.add(line.split(" ", 1)[0])
        assert seen >= {"node1", "node2"}, proc.stderr.read() if proc.poll() is not None else seen
        code, err = interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, err
    assert "Traceback" not in err
    for node in ("node1", "node2"):
        assert s.hosts.ssh(node, "docker ps --format '{{.Names}}'").stdout.split() == [
            "sparktui-toy"]
        eventually(lambda n=node: s.hosts.ssh(n, "pgrep -af '[d]ocker logs' || true")
                   .stdout.strip() == "", 15, f"no docker logs left on {node}")
    assert main(s.cli("stop", "--yes")) == 0

