"""Command line: no subcommand opens the dashboard; subcommands run headless.

Only the dashboard path imports Textual; ``plan`` and the engine commands never do.
Everything the CLI prints goes through ``visible.terminal_safe`` (its stdout and stderr
are wrapped while it runs): node text (labels, model names, log lines, a hook's stderr)
never reaches the terminal as a control sequence, whichever command prints it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from sparktui.cli.language import refuse_language
from sparktui.cli.parser import build_parser
from sparktui.errors import EXIT_BAD_INPUT, SparkError
from sparktui.exitcodes import ExitCode
from sparktui.i18n import _, install
from sparktui.scrub import scrub
from sparktui.visible import TerminalSafeWriter


def _early_lang(argv: Sequence[str]) -> str | None:
    """--lang must act before the parser builds its (translated) help texts."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic's plugins are whatever installed package declares one: each would see every
    # value sparktui validates, the Home Assistant token included (and finding them scans
    # every installed distribution's metadata, 8 ms of a cold `plan`).
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = TerminalSafeWriter(stdout)
    sys.stderr = TerminalSafeWriter(stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    lang = _early_lang(args_list)
    if refuse_language(lang):
        return EXIT_BAD_INPUT
    install(lang)
    parser = build_parser()
    args = parser.parse_args(args_list)
    try:
        return int(args.run(args))
    except SparkError as exc:
        print(scrub(exc.render()), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return 0


__all__ = ["EXIT_BAD_INPUT", "main"]
