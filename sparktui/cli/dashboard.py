"""The TUI entry point, kept apart so headless commands never import Textual."""

from __future__ import annotations

import argparse
import gc


def run_dashboard(args: argparse.Namespace) -> int:
    # Start-up allocates a lot and frees little: the cyclic collector would rescan every
    # module object again and again (~40 ms before the first frame). It is switched back
    # on once the first frame is painted (sparktui.tui.startup.finish_start).
    gc.disable()
    try:
        from sparktui.tui.app import run_app
        from sparktui.tui.startup import collect_less_often

        collect_less_often()

        return run_app(args)
    finally:
        gc.enable()
