"""Arguments of ``sparktui pull``, and its runner (which imports the command's module only
when it runs, as ``commands``' runners do)."""

from __future__ import annotations

import argparse

from sparktui.cli.commands import add_command, cluster_option
from sparktui.i18n import _


def register_pull(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "pull", _("put the recipe's image and model on every node of the "
                                   "cluster"), _(
        "Shows a fresh health check, then, once confirmed, gives the nodes that lack the "
        "recipe's docker_image (by image ID) a copy: from a node that has it, else pulled "
        "once from the registry by the head, then copied node to node over the fabric "
        "(docker save | ssh NODE docker load), ending with the same image ID everywhere. "
        "Then the model's snapshot: downloaded once from the Hub (HF_ENDPOINT, HF_TOKEN) "
        "by the node that has most of it, with the image's own huggingface_hub, into its "
        "HF cache, then copied node to node with rsync, each file checked against the "
        "Hub's hash on the node that received it. Each node's free disk is checked first. "
        "The nodes must trust each other over SSH, set up once on each node as the SSH "
        "user: ssh-keygen -t ed25519; then for every other node ssh-copy-id "
        "USER@ITS_FABRIC_IP and ssh-keyscan ITS_FABRIC_IP >> ~/.ssh/known_hosts (compare "
        "the fingerprints). sparktui doctor checks it."))
    p.add_argument("recipe", help=_("the recipe's name (a folder in the recipes search path)"))
    cluster_option(p, recipe=True)
    only = p.add_mutually_exclusive_group()
    only.add_argument("--image-only", action="store_true", help=_("the image only"))
    only.add_argument("--model-only", action="store_true",
                      help=_("the model only (its download needs the image on that node)"))
    p.add_argument("--json", action="store_true",
                   help=_("one JSON object per line (steps, transfers, the result)"))
    p.add_argument("--yes", action="store_true", help=_("confirm without a prompt"))
    p.set_defaults(run=_pull)


def _pull(args: argparse.Namespace) -> int:
    from sparktui.cli import pull_cmd

    return pull_cmd.run_pull(args)
