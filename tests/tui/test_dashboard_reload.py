"""A config edited under a running dashboard: the engine is rebuilt for the new config
(the old one's connections closed), so a cluster added to the file works at once."""

from __future__ import annotations

import asyncio
import json

from polling import eventually_async

from tui.dashboard_support import dashboard_app


def _more_cluster(hosts) -> str:
    node = hosts.nodes[0]
    return ("\n[[clusters]]\nname = \"more\"\nnodes = [\n"
            f"  {{ name = \"far1\", ssh_ip = {json.dumps(node.addr)}, ssh_port = {node.port}, "
            "rank = 0 },\n]\n")


def test_a_cluster_added_to_the_config_becomes_healthy_without_restart(site, test_cluster):
    s = site(2)
    app = dashboard_app(s, live=True)
    more = test_cluster(1)  # new nodes: the site's user key and host keys are added
    with more.authorized_keys.open("a") as keys:
        keys.write(s.hosts.key_path.with_name("id_ed25519.pub").read_text())

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually_async(lambda: "test" in app.dashboard.health, settle=pilot.pause)
            old = app.engine
            assert old._transports  # the first engine holds its connections
            with s.hosts.known_hosts_path.open("a") as known:
                known.writelines(line + "\n" for line in more.known_hosts_lines())
            with s.config_path.open("a") as config:
                config.write(_more_cluster(more))
            await eventually_async(lambda: "more" in app.cluster_names()
                                   and app.dashboard.is_mounted and app.screen is app.dashboard,
                                   settle=pilot.pause)
            await pilot.pause(0.3)  # the new dashboard has focused its cluster
            assert app.engine is not old and app.engine.config.cluster("more")
            await eventually_async(lambda: old._transports == {}, settle=pilot.pause)  # closed
            app.focus_cluster("more")
            await eventually_async(lambda: "more" in app.dashboard.health
                                   or "more" in app.dashboard.health_error, settle=pilot.pause)
            assert "more" not in app.dashboard.health_error, app.dashboard.health_error
            health = app.dashboard.health["more"]
            assert health.all_reachable, health
            assert [n.node for n in health.nodes] == ["far1"]
            same, shown = app.engine, app.dashboard
            s.config_path.touch()  # a write that changes nothing keeps the engine
            await eventually_async(lambda: app.dashboard is not shown
                                   and app.dashboard.is_mounted and app.screen is app.dashboard,
                                   settle=pilot.pause)
            await pilot.pause(0.3)
            assert app.engine is same

    asyncio.run(go())
