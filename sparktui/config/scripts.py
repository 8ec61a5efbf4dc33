"""Built-in host scripts, referenced from hooks as ``{script = "<alias>"}``.

They ship inside the wheel and are piped to the node over SSH stdin, so nothing
is copied to the cluster beforehand.
"""

from __future__ import annotations

from pathlib import Path

from sparktui.resources import data_dir

BUILTIN_SCRIPTS: dict[str, str] = {
    "stop_dgx_services": "stop-dgx-services.sh",
    "restore_dgx_services": "restore-dgx-services.sh",
}


def known_scripts() -> list[str]:
    return sorted(BUILTIN_SCRIPTS)


def script_path(alias: str) -> Path:
    return data_dir("host-scripts") / BUILTIN_SCRIPTS[alias]


def script_text(alias: str) -> str:
    return script_path(alias).read_text(encoding="utf-8")


def known_script_texts() -> dict[str, str]:
    """Every built-in script by alias: a job script carries the ones its hooks run."""
    return {alias: script_text(alias) for alias in known_scripts()}
