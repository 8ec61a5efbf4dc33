"""One entry point for every program of the test image, chosen by the program's name.

/usr/local/bin/{vllm,ray,etcd,...} and the ``python3 -m`` modules under site/ all land
here: ``main()`` reads which program it was started as.
"""

from __future__ import annotations

import os
import sys

from sparktest import engine, ray_cli, services

SERVICE_PROGRAMS = {
    "etcd": "etcd", "nats-server": "nats", "mooncake_master": "mooncake-master",
    "dcgm-exporter": "dcgm-exporter", "node_exporter": "node-exporter",
    # stand-ins for the programs of a site's own images (trainers, data servers)
    "torchrun": "server", "data-server": "server", "store-server": "server",
}


def main(program: str | None = None, argv: list[str] | None = None) -> None:
    program = program or os.path.basename(sys.argv[0])
    args = sys.argv[1:] if argv is None else argv
    if program == "vllm":
        if args[:1] != ["serve"]:
            print(f"vllm: only `vllm serve` is played here, not {args[:1]}", file=sys.stderr)
            sys.exit(2)
        engine.run("vllm", args[1:])
    elif program == "vllm.api_server":
        engine.run("vllm", args)
    elif program == "sglang.launch_server":
        engine.run("sglang", args)
    elif program == "ray":
        ray_cli.main(args)
    elif program in SERVICE_PROGRAMS:
        services.run(SERVICE_PROGRAMS[program], args)
    elif program in ("mooncake.mooncake_store_service", "dynamo.frontend"):
        services.run("mooncake-store" if program.startswith("mooncake") else "dynamo-frontend",
                     args)
    else:
        print(f"sparktest: no such program {program!r}", file=sys.stderr)
        sys.exit(127)
