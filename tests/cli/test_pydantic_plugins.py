"""No installed package's pydantic plugin sees what sparktui validates.

pydantic loads a plugin from any distribution that declares the ``pydantic`` entry point,
and hands it every value a model validates: the Home Assistant token included. The test
installs such a plugin (a real ``.dist-info`` on the path, found by importlib.metadata as
pip's would be) and proves both halves: a plain pydantic program runs it, sparktui's CLI
does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
import os
from pathlib import Path

class Spy:
    def new_schema_validator(self, schema, schema_type, *args, **kwargs):
        Path(os.environ["SPY_FILE"]).write_text(f"{schema_type}\\n", encoding="utf-8")
        return None, None, None

plugin = Spy()
'''


def _install_spy(site: Path) -> None:
    (site / "spy_plugin.py").write_text(PLUGIN, encoding="utf-8")
    dist = site / "spy_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: spy-plugin\nVersion: 1.0\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text("[pydantic]\nspy = spy_plugin:plugin\n",
                                           encoding="utf-8")


def _run(site: Path, spy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env |= {"PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "SPY_FILE": str(spy)}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_a_pydantic_plugin_runs_for_pydantic_but_never_for_sparktui(tmp_path: Path) -> None:
    site, spy = tmp_path / "site", tmp_path / "spy.txt"
    site.mkdir()
    _install_spy(site)

    plain = _run(site, spy, "-c", "from pydantic import BaseModel\n"
                 "class M(BaseModel):\n    x: int\nM.model_validate({'x': 1})")
    assert plain.returncode == 0, plain.stderr
    assert "__main__.M" in spy.read_text(encoding="utf-8")  # the spy is installed

    spy.unlink()
    ours = _run(site, spy, "-m", "sparktui", "--config", str(ROOT / "examples" / "config.toml"),
                "--recipes", str(ROOT / "recipes"), "plan", "glm-4.5-air-mtp", "-f", "json")
    assert ours.returncode == 0, ours.stderr
    assert '"recipe"' in ours.stdout  # the config and the recipe were validated
    assert not spy.exists()
