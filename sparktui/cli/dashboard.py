"""The TUI entry point, kept apart so headless commands never import Textual."""

from __future__ import annotations

import argparse


def run_dashboard(args: argparse.Namespace) -> int:
    from sparktui.tui.app import run_app

    return run_app(args)
