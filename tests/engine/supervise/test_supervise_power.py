"""A power off disarms the supervisor of a group on the nodes it takes down, before any
node goes: the supervisor ends, saying who powered off, and restarts nothing."""

from __future__ import annotations

import asyncio

from lookalike import Why
from power_support import fast_polls, ha, make_site
from site_support import Recorder, toy_recipe
from supervise_support import TOP, SupervisorProcess, docker_runs, wait_supervised

# A look-alike, not the real vLLM (tests/lookalike.py): a supervised group served, then powered off.
LOOKALIKE = Why.SPEED

__all__ = ["fast_polls", "ha"]  # fixtures used by name


class _Site:
    """A power test site as the supervision helpers read one (``root``, ``cli``)."""

    def __init__(self, power_site, root, recipes) -> None:
        self.power_site, self.root, self.recipes = power_site, root, recipes
        self.hosts = power_site.hosts

    def cli(self, *args: str) -> list[str]:
        return ["--lang", "en", "--config", str(self.power_site.config_path),
                "--recipes", str(self.recipes), *args]

    def engine(self):
        return self.power_site.engine()


def test_power_off_ends_the_supervisor_before_the_nodes_go(fresh_cluster, tmp_path, ha):
    power_site = make_site(fresh_cluster, tmp_path, ha, n=1, top=TOP)
    recipes = tmp_path / "recipes"
    (recipes / "toy").mkdir(parents=True)
    (recipes / "toy" / "recipe.toml").write_text(toy_recipe(nodes=1, port=30021))
    s = _Site(power_site, tmp_path, recipes)
    with SupervisorProcess(s, "toy") as sup:
        wait_supervised(s, sup, nodes=("node1",))
        rec = Recorder()

        async def power_off():
            engine = power_site.engine()
            try:
                return await engine.power_off("test", rec)
            finally:
                await engine.close()

        result = asyncio.run(power_off())
        assert result.ok, result
        assert sup.wait(60) == 0, sup.output()
        assert "power off by" in sup.output() and "restarting" not in sup.output()
    steps = [(e.step, e.state) for e in rec.events]
    # the supervisor had ended before the node was told to shut down
    assert steps.index(("supervise", "ok")) < steps.index(("shutdown", "started"))
    assert docker_runs(s, "node1") == 1
    assert ha.states["switch.node1"] == "off"
