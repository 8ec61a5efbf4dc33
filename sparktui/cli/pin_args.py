"""Arguments of ``sparktui pin``, and its runner (which imports the command's module only
when it runs, as ``commands``' runners do)."""

from __future__ import annotations

import argparse

from sparktui.cli.commands import add_command, cluster_option
from sparktui.i18n import _


def register_pin(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "pin", _("write the digest the recipe's image has on the nodes "
                                  "into the recipe"), _(
        "Read the repo digest of the recipe's docker_image on every node of the cluster "
        "(docker image inspect) and, when every node has the same one, write "
        "docker_image = \"repo@sha256:...\" into the recipe file, its comments and layout "
        "kept. Nodes that disagree, do not answer or have no digest are named and nothing "
        "is written."))
    p.add_argument("recipe", help=_("the recipe's name (a folder in the recipes search path)"))
    cluster_option(p, recipe=True)
    p.add_argument("--json", action="store_true", help=_("one JSON object instead of text"))
    p.set_defaults(run=_pin)


def _pin(args: argparse.Namespace) -> int:
    from sparktui.cli import pin_cmd

    return pin_cmd.run_pin(args)
