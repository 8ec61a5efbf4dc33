"""How fast ``sparktui plan`` is, as the operator feels it and as a library call.

    python benchmarks/bench_plan.py [--runs 15] [--plans-seconds 2] [--importtime]

- wall time (median of N runs, interleaved) of a cold ``python -m sparktui plan R -f
  json`` (there is no cache of plan outputs) against ``python -c pass``, ``python -c
  "import pydantic"`` and pydantic's own floor (one strict ``BaseModel`` of one field,
  defined and validated: what any pydantic program pays before its first model) on the
  same machine, and the ratios (goal: plan at most 2.5x the pydantic import);
- plans per second for a 64-node cluster: ``build_plan`` + ``render_json`` in-process;
- where the plan command's time goes, phase by phase, in a fresh interpreter;
- with ``--importtime`` (or when the goal is missed): the imports with the most self
  time in ``plan`` (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sparktui.config.loader import load_config, load_recipe  # noqa: E402
from sparktui.plan.build import build_plan  # noqa: E402
from sparktui.plan.render import render_json  # noqa: E402

RECIPE = "glm-4.5-air-mtp"
PLAN_ARGS = ["-m", "sparktui", "--config", str(ROOT / "examples" / "config.toml"),
             "--recipes", str(ROOT / "recipes"), "plan", RECIPE, "--format", "json"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # As installed: each command reads its cached bytecode (a checkout run with this set
    # would compile sparktui on every run and measure the compiler).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _once(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


COLD = f"sparktui plan {RECIPE} -f json"
GOAL = 2.5
FLOOR = "pydantic's floor: one model validated"
FLOOR_CODE = """
from pydantic import BaseModel, ConfigDict
class One(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
    x: int
One.model_validate({"x": 1})
"""


def startup(runs: int) -> dict[str, float]:
    commands = {"python -c pass": ["-c", "pass"],
                "python -c 'import pydantic'": ["-c", "import pydantic"],
                FLOOR: ["-c", FLOOR_CODE],
                COLD: PLAN_ARGS}
    env = _env()
    for args in commands.values():  # warm the page cache and the .pyc files
        _once(args, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):  # interleaved, so drift hits all alike
        for name, args in commands.items():
            times[name].append(_once(args, env))
    return {name: statistics.median(values) for name, values in times.items()}


def big_cluster_files(folder: Path, nodes: int) -> tuple[Path, Path]:
    rows = ",\n".join(
        f'  {{ name = "spark{i:02d}", ssh_ip = "10.0.{i // 250}.{i % 250 + 1}", '
        f'ib_ip = "192.168.{i // 250}.{i % 250 + 1}", rank = {i} }}' for i in range(nodes))
    config = folder / "config.toml"
    config.write_text(f'ssh_user = "ops"\n\n[[clusters]]\nname = "big"\nnodes = [\n{rows}\n]\n\n'
                      '[nccl."big"]\nib_hca = "rocep1s0f1"\nsocket_ifname = "enp1s0f1np1"\n'
                      "ib_gid_index = 3\n", encoding="utf-8")
    recipe = folder / "big-recipe" / "recipe.toml"
    recipe.parent.mkdir()
    recipe.write_text(
        'engine = "vllm"\ndocker_image = "nvcr.io/nvidia/vllm:25.10-py3"\nmodel = "org/model"\n'
        f'required_nodes = {nodes}\ntensor_parallel_size = {nodes}\nshm_size = "64gb"\n'
        'entrypoint = ["vllm", "serve"]\nargs = ["--max-model-len", "32768"]\n'
        '[[extra_mounts]]\nhost = "~/.cache/jit"\ncontainer = "/root/.cache/jit"\n'
        'env = "JIT"\n[mods]\ncommands = ["pip install x"]\n[env]\nK = "v"\n', encoding="utf-8")
    return config, recipe


def plans_per_second(nodes: int, seconds: float) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        config_path, recipe_path = big_cluster_files(Path(tmp), nodes)
        config, recipe = load_config(config_path), load_recipe(recipe_path)
        plan = build_plan(config, recipe)
        assert len(plan.nodes) == nodes
        size = len(render_json(plan))
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            render_json(build_plan(config, recipe))
            count += 1
    return count / elapsed, size


PHASES = """
import time
t = [time.perf_counter()]
import pydantic_core
t.append(time.perf_counter())
import sparktui.config.loader
t.append(time.perf_counter())
import sparktui.plan.build, sparktui.plan.render, sparktui.cli
t.append(time.perf_counter())
from pathlib import Path
config = sparktui.config.loader.load_config(Path(CONFIG))
recipe = sparktui.config.loader.load_recipe(Path(RECIPE))
t.append(time.perf_counter())
sparktui.plan.render.render_json(sparktui.plan.build.build_plan(config, recipe))
t.append(time.perf_counter())
print(" ".join(str(b - a) for a, b in zip(t, t[1:])))
"""
PHASE_NAMES = ["import pydantic_core", "sparktui.config (our models)",
               "sparktui.plan + render + cli", "read + validate config and recipe",
               "build_plan + render_json"]


def phases(runs: int) -> list[float]:
    code = PHASES.replace("CONFIG", repr(str(ROOT / "examples" / "config.toml"))).replace(
        "RECIPE", repr(str(ROOT / "recipes" / RECIPE / "recipe.toml")))
    samples = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                              text=True, check=True)
        samples.append([float(x) for x in proc.stdout.split()])
    return [statistics.median(column) for column in zip(*samples, strict=True)]


def import_profile(top: int = 12) -> list[tuple[int, int, str]]:
    proc = subprocess.run([sys.executable, "-X", "importtime", *PLAN_ARGS], env=_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line.split(":", 1)[1].split("|")
        rows.append((int(self_us), int(cumulative_us), name.rstrip()))
    return sorted(rows, key=lambda r: -r[0])[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--plans-seconds", type=float, default=2.0)
    parser.add_argument("--importtime", action="store_true",
                        help="also show which imports dominate the plan command")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]} on {sys.platform}; median of {args.runs} runs")
    medians = startup(args.runs)
    for name, seconds in medians.items():
        print(f"  {name:<42} {seconds * 1000:8.1f} ms")
    pydantic_s = medians["python -c 'import pydantic'"]
    plan_s = medians[COLD]
    print(f"  plan / python -c pass  = {plan_s / medians['python -c pass']:6.2f}x")
    print(f"  plan / import pydantic = {plan_s / pydantic_s:6.2f}x  (goal <= {GOAL:g}x)")
    print(f"  floor / import pydantic = {medians[FLOOR] / pydantic_s:5.2f}x  (the least a "
          f"BaseModel program takes; sparktui's own share: {(plan_s - medians[FLOOR]) * 1000:.1f}"
          " ms)")

    print("where plan's time goes (fresh interpreter, median):")
    for name, seconds in zip(PHASE_NAMES, phases(max(3, args.runs // 3)), strict=True):
        print(f"  {name:<42} {seconds * 1000:8.1f} ms")

    rate, size = plans_per_second(args.nodes, args.plans_seconds)
    print(f"{args.nodes}-node plan, build_plan + render_json in-process: {rate:8.1f} plans/s "
          f"({1000 / rate:.2f} ms each, {size / 1024:.0f} KiB of JSON)")

    if args.importtime or plan_s / pydantic_s > GOAL:
        print("imports by self time (python -X importtime), top 12:")
        for self_us, cumulative_us, name in import_profile():
            print(f"  {self_us / 1000:6.1f} ms self {cumulative_us / 1000:7.1f} ms cumulative"
                  f"  {name.strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
