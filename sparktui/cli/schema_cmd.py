"""``sparktui schema config|recipe [-o FILE]``: the JSON Schema editors read (taplo's
``#:schema`` directive), as pydantic generates it from the models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sparktui.cli.commands import add_command
from sparktui.errors import EXIT_OK
from sparktui.i18n import _

KINDS = ("config", "recipe")  # names only: the models load when the schema is written


def register(sub: argparse._SubParsersAction) -> None:
    parser = add_command(sub, "schema", _("print the JSON Schema of config.toml or a recipe"),
                         _("Print the JSON Schema of config.toml or of a recipe, for editors "
                           "with a TOML language server (a '#:schema' line points at it)."))
    parser.add_argument("kind", choices=KINDS, help=_("which file's schema"))
    parser.add_argument("-o", "--output", type=Path, metavar="FILE",
                        help=_("write to FILE instead of standard output"))
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sparktui.config.json_schema import schema_text

    text = schema_text(args.kind)
    if args.output is None:
        sys.stdout.write(text)
    else:
        from sparktui.cli.plan_output import write_plan  # refusals located, no traceback

        write_plan(args.output, text, executable=False)
    return EXIT_OK
