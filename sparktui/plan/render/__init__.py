"""Launch plans as text (for people), JSON (for programs), sh (to run by hand) and sbatch
(a Slurm job script)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sparktui.plan.model import LaunchPlan
from sparktui.plan.render.json import render_json
from sparktui.plan.render.sbatch import render_sbatch
from sparktui.plan.render.sh import render_sh
from sparktui.plan.render.text import render_text

FORMATS = ("text", "json", "sh", "sbatch")


def render(plan: LaunchPlan, fmt: str, *, scripts: Mapping[str, str] | None = None,
           ssh_key_path: str | None = None, known_hosts_path: str | None = None) -> str:
    renderers: dict[str, Callable[[], str]] = {
        "text": lambda: render_text(plan),
        "json": lambda: render_json(plan),
        "sh": lambda: render_sh(plan, scripts=scripts or {}, ssh_key_path=ssh_key_path,
                                known_hosts_path=known_hosts_path),
        "sbatch": lambda: render_sbatch(plan, scripts=scripts or {}),
    }
    return renderers[fmt]()


__all__ = ["FORMATS", "render", "render_json", "render_sbatch", "render_sh", "render_text"]
