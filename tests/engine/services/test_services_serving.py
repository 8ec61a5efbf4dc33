"""A recipe of services only (no engine) is serving once its services are ready (#29
item 5): ``health`` said "not serving" beside a ready service. Real sshd and dockerd."""

from __future__ import annotations

import json

from sparktui.cli import main

DATA = """\
description = "services only: one data server"
docker_image = "busybox:1"

[frontend]
type = "none"

[[services]]
name = "data"
command = ["data-server", "--port", "7140"]
readiness = { port = 7140, timeout = 60 }
"""


def test_a_ready_services_only_recipe_is_serving(site, capsys):
    s = site(1)
    s.recipe("data", DATA)
    assert main(s.cli("serve", "data")) == 0, capsys.readouterr().err
    try:
        capsys.readouterr()
        assert main(s.cli("health")) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0] == "cluster test: serving", out
        assert main(s.cli("health", "--json")) == 0
        health = json.loads(capsys.readouterr().out)
        assert [svc["state"] for svc in health["services"]] == ["ready"]
        assert health["serving"] is True
    finally:
        assert main(s.cli("stop", "--yes")) == 0
    capsys.readouterr()
    assert main(s.cli("health")) == 0
    assert capsys.readouterr().out.splitlines()[0] == "cluster test: not serving"
