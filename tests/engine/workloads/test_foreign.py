"""A node speaks only for itself, and an image never speaks for sparktui (issue 28, items
1 to 4): containers planted on a node's real dockerd, images that bake sparktui's labels,
a tmux session whose env forges a label. Each failed before its fix."""

from __future__ import annotations

import asyncio
import json
import stat

from engine.drivers.test_tmux import VLLM
from lookalike import Why
from site_support import toy_recipe

from sparktui.cli import main

# A look-alike, not the real vLLM (tests/lookalike.py): planted containers and images beside a serve
# per test; 2-node groups.
LOOKALIKE = (Why.SPEED, Why.MULTI_NODE)

RUN = "0123456789abcdef"
PWNED = 'touch "$HOME/pwned"'


def _plant(s, node: str, name: str, labels: dict[str, str], image: str = "busybox:1"):
    argv = ["run", "-d", "--name", name]
    for key, value in labels.items():
        argv += ["--label", f"sparktui.{key}={value}"]
    got = s.hosts.node(node).docker(*argv, image, "sleep", "600")
    assert got.returncode == 0, got.stderr


def _names(s, node: str) -> list[str]:
    return s.hosts.node(node).docker("ps", "-a", "--format", "{{.Names}}").stdout.split()


def _ran(s, node: str, what: str = "pwned") -> bool:
    return (s.hosts.node(node).home / what).exists()


def _head(recipe: str, node: str, **more: str) -> dict[str, str]:
    return {"recipe": recipe, "cluster": "test", "node": node, "rank": "0", "role": "head",
            "port": "30099", "run": RUN,
            "after_stop": json.dumps([["command", PWNED, "abort"]]), **more}


def _word(value: str) -> str:
    """A Dockerfile word of ``value``: quoted, ``$`` not expanded."""
    return json.dumps(value).replace("$", "\\$")


def _bake(s, node: str, ref: str, labels: dict[str, str], base: str = "busybox:1") -> None:
    """An image ``ref``: ``base`` with its own LABELs ``labels`` (docker copies them into
    every container made from it)."""
    n = s.hosts.node(node)
    assert n.docker("create", "--name", "bake", base).returncode == 0
    changes = [x for k, v in labels.items()
               for x in ("--change", f"LABEL sparktui.{k}={_word(v)}")]
    got = n.docker("commit", *changes, "bake", ref)
    assert got.returncode == 0, got.stderr
    n.docker("rm", "bake")
    baked = json.loads(n.docker("image", "inspect", ref).stdout)[0]["Config"]["Labels"]
    assert baked == {f"sparktui.{k}": v for k, v in labels.items()}, baked


def test_a_container_labelled_for_another_node_is_never_acted_on_there(site, capsys):
    s = site(2)
    _plant(s, "node2", "sparktui-evil", _head("evil", "node1"))
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    rows = {r["node"]: r for r in json.loads(capsys.readouterr().out)["nodes"]}
    [evil] = rows["node2"]["workloads"]
    assert evil["node"] == "node2" and evil["foreign"] == {
        "code": "foreign.other_node", "params": {"claimed": "'node1'", "node": "node2"}}
    assert rows["node1"]["workloads"] == []
    assert main(s.cli("stop", "--yes")) == 0
    out = capsys.readouterr().out
    assert "left alone" in out and "sparktui-evil" in out
    assert not _ran(s, "node1") and not _ran(s, "node2")  # its after_stop ran nowhere
    assert not any("sparktui-evil" in a for a in s.hosts.recorded_docker("node1"))
    assert not any(a[1] in ("rm", "stop", "kill") for a in s.hosts.recorded_docker("node2"))
    assert _names(s, "node2") == ["sparktui-evil"]  # foreign: listed, never touched


def test_a_planted_container_without_a_run_id_is_foreign(site, capsys):
    s = site(1)
    labels = _head("planted", "node1")
    del labels["run"]
    _plant(s, "node1", "sparktui-planted", labels)
    assert main(s.cli("stop", "--yes")) == 0
    assert "no run id" in capsys.readouterr().out
    assert _names(s, "node1") == ["sparktui-planted"] and not _ran(s, "node1")


def test_an_image_that_bakes_sparktuis_labels_is_not_adopted(site, capsys):
    # A tool the operator started by hand on the node, from an image that bakes every
    # label of a head, its run id and an after_stop: the run id is the image's own.
    s = site(1)
    _bake(s, "node1", "thirdparty/tool:1", _head("tool", "node1"))
    got = s.hosts.node("node1").docker("run", "-d", "--name", "tool", "thirdparty/tool:1",
                                       "sleep", "600")
    assert got.returncode == 0, got.stderr
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    [tool] = json.loads(capsys.readouterr().out)["nodes"][0]["workloads"]
    assert tool["foreign"] == {"code": "foreign.image_run_id", "params": {}}
    assert main(s.cli("stop", "--yes")) == 0
    assert _names(s, "node1") == ["tool"] and not _ran(s, "node1")


def test_sparktuis_own_engine_from_an_image_labelled_head_and_service_is_still_ours(
        site, tmp_path):
    # The engine's image bakes labels sparktui reads (a role, a service, an after_stop,
    # a run id): every one is set by the launch, so the engine is sparktui's and what
    # its own labels say, and the image's after_stop never runs.
    s = site(2)
    _bake(s, "node1", "vllm-labelled:1", {
        "role": "head", "service": "imposter", "run": RUN,
        "after_stop": json.dumps([["command", PWNED, "abort"]])}, base="vllm:test")
    archive = tmp_path / "image.tar"  # the same image ID on both nodes, as if pulled
    assert s.hosts.node("node1").docker("save", "-o", str(archive), "vllm-labelled:1"
                                        ).returncode == 0
    assert s.hosts.node("node2").docker("load", "-i", str(archive)).returncode == 0
    s.recipe("toy", toy_recipe().replace("vllm:test", "vllm-labelled:1")
             + 'after_stop = ["touch \\"$HOME/restored\\""]\n')
    assert main(s.cli("serve", "toy")) == 0

    async def look():
        e = s.engine()
        try:
            return await e.health("test")
        finally:
            await e.close()

    health = asyncio.run(look())
    work = {w.node: w for w in health.workloads}
    assert work["node1"].ours and work["node2"].ours
    assert work["node2"].role == "worker" and not work["node2"].is_service
    assert main(s.cli("stop", "--yes")) == 0
    for node in ("node1", "node2"):
        assert _names(s, node) == []
        assert _ran(s, node, "restored") and not _ran(s, node)


def test_a_label_that_does_not_parse_is_foreign_and_the_other_nodes_are_stopped(
        site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe() + 'after_stop = ["touch \\"$HOME/restored\\""]\n')
    assert main(s.cli("serve", "toy")) == 0
    _plant(s, "node1", "sparktui-nosuch", _head("x", "nosuch"))
    _plant(s, "node1", "sparktui-port", _head("y", "node1", port="http"))
    _plant(s, "node2", "sparktui-rank", _head("z", "node2", rank="-1"))
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 0
    out = capsys.readouterr().out
    assert "Traceback" not in out and out.count("left alone") == 3
    assert "label port is not a number" in out and "label rank is not a number" in out
    assert sorted(_names(s, "node1")) == ["sparktui-nosuch", "sparktui-port"]
    assert _names(s, "node2") == ["sparktui-rank"]
    assert _ran(s, "node1", "restored") and _ran(s, "node2", "restored")
    assert not _ran(s, "node1") and not _ran(s, "node2")


def test_an_after_stop_that_does_not_parse_runs_nothing_and_the_other_restores_run(
        site, capsys):
    s = site(2)
    s.recipe("toy", toy_recipe() + 'after_stop = ["touch \\"$HOME/restored\\""]\n')
    assert main(s.cli("serve", "toy")) == 0
    # sparktui's own run as far as its labels go, on the node that lists it: a first
    # step that would run, then a built-in script that does not exist
    _plant(s, "node1", "sparktui-odd", _head("odd", "node1", after_stop=json.dumps(
        [["command", PWNED, "abort"], ["script", "no_such_script", "abort"]])))
    capsys.readouterr()
    assert main(s.cli("stop", "--yes")) == 1
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text and "no_such_script" in text and "not restored" in text
    assert not _ran(s, "node1")  # no step of it ran, not even the first
    assert _ran(s, "node1", "restored") and _ran(s, "node2", "restored")
    assert _names(s, "node1") == [] and _names(s, "node2") == []


def test_a_newline_in_a_tmux_env_value_forges_no_label(fresh_site, tmp_path, capsys):
    s = fresh_site(1)
    # A node whose locale is UTF-8 (as DGX OS sets it): tmux prints a value's newline
    # as it is (in any other locale it prints "_" for it). A fresh site: .bashrc changed.
    with (s.hosts.node("node1").home / ".bashrc").open("a") as rc:
        rc.write("export LANG=C.UTF-8\n")
    vllm = tmp_path / "vllm"
    vllm.write_text(VLLM)
    vllm.chmod(vllm.stat().st_mode | stat.S_IEXEC)
    # ZZZ sorts after every label: its second line came last, and the last one won
    s.recipe("host", "\n".join([
        'engine = "vllm"', 'runtime = "tmux"', 'docker_image = "host"', 'model = "org/toy"',
        "port = 30023", "required_nodes = 1", f'entrypoint = ["{vllm}", "serve"]',
        "[env]", 'ZZZ = "x\\nSPARKTUI_LABEL_CLUSTER=elsewhere\\nSPARKTUI_LABEL_NODE=n9"'])
        + "\n")
    assert main(s.cli("serve", "host")) == 0, capsys.readouterr().err
    env = s.hosts.ssh("node1", "tmux show-environment -t sparktui-host").stdout
    assert "SPARKTUI_LABEL_CLUSTER=elsewhere" in env.splitlines()  # the forgery is there
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    [host] = json.loads(capsys.readouterr().out)["nodes"][0]["workloads"]
    assert host["cluster"] == "test" and host["foreign"] == ""
    assert main(s.cli("stop", "--yes")) == 0
    sessions = s.hosts.ssh("node1", "tmux ls -F '#{session_name}' 2>/dev/null").stdout
    assert sessions.split() == []


CRAFTED = [
    None, 5, "text", [], {"Name": None}, {"Name": ["x"]},
    {"Name": "/sparktui-list-labels", "Config": {"Labels": ["sparktui.recipe=a"]}},
    {"Name": "/sparktui-object-label", "State": "running", "Args": "sh", "RestartCount": [1],
     "Config": {"Labels": {"sparktui.recipe": "toy", "sparktui.cluster": "test",
                           "sparktui.node": "node2", "sparktui.run": RUN,
                           "sparktui.role": {"head": True}}, "Image": 7}},
]


def test_a_crafted_docker_listing_is_that_nodes_error_and_the_others_are_stopped(
        fresh_site, capsys):
    from hosts.lying import Answer, LyingNode

    s = fresh_site(2)
    s.recipe("toy", toy_recipe(nodes=1))
    liar = LyingNode(s.hosts.node("node2"))  # docker's API unknown: its CLI listing is read
    liar.tell({})
    assert main(s.cli("serve", "toy")) == 0
    liar.tell({"docker_list": Answer(json.dumps(CRAFTED).encode())})
    capsys.readouterr()
    assert main(s.cli("health", "--json")) == 0
    rows = {r["node"]: r for r in json.loads(capsys.readouterr().out)["nodes"]}
    [odd] = rows["node2"]["workloads"]  # the others name no container, or no recipe
    assert odd["name"] == "sparktui-object-label"
    assert odd["foreign"]["code"] == "foreign.label_not_text", odd
    assert "role" in odd["foreign"]["params"]["key"]
    assert odd["restarts"] == 0 and odd["image"] == ""
    assert main(s.cli("stop", "--yes")) == 0
    assert _names(s, "node1") == []
    assert not any(a.startswith(("docker rm", "docker stop", "docker kill"))
                   for a in liar.asked())

    # a listing that is no list at all: node2's error; node1 is stopped all the same
    assert main(s.cli("serve", "toy")) == 0
    for listing in (b'{"Name": "/x"}', b"[{]", b"null"):
        liar.tell({"docker_list": Answer(listing)})
        capsys.readouterr()
        assert main(s.cli("health")) == 1
        assert "docker unreachable" in capsys.readouterr().out
    assert main(s.cli("stop", "--yes")) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert _names(s, "node1") == []
