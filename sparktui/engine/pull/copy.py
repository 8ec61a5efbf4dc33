"""An image copied from one node to another over the fabric: on the source node,
``docker save IMAGE | dd status=progress | ssh TARGET docker load``.

Why save | load and not a pull on each node: benchmarks/bench_pull_image.py (the figures
are in docs/pull.md). The pipeline runs as one stream on the source node: ``dd``'s byte
count on its stderr is the progress, and its last line says how the pipeline ended
(``pipefail``: any stage's failure). When the stream is stopped (Ctrl+C, a cancelled
worker) the channel's end ends the wrapper (``ended_with_channel``), whose TERM trap ends
every process of the pipeline: the target's ``docker load`` reads a cut archive and
fails, so no half-loaded image is tagged there.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from sparktui.config.models import Config, Node
from sparktui.engine.pull.fabric import node_to_node_argv
from sparktui.engine.remote.transport import NodeError, Transport, argv_command
from sparktui.plan.pull.image import dd_bytes

MARK = "@@sparktui-copy-exit "
REPORT_SECONDS = 0.5
"""At most two byte counts a second per node reach the front-end."""

SCRIPT = """set -o pipefail
trap 'kill 0' TERM HUP INT
image=$1; shift
{ docker save "$image" | dd bs=1M status=progress 2> >(tr '\\r' '\\n' >&2) | "$@"; } &
wait $!
echo "@@sparktui-copy-exit $?"
"""
"""A fixed script: the image and the target's ssh argv come as its arguments, never into
its text (``$1``, ``"$@"``)."""


def copy_argv(config: Config, target: Node, image: str) -> list[str]:
    """What the source node runs to copy ``image`` to ``target``."""
    return ["bash", "-c", SCRIPT, "sparktui-copy", image,
            *node_to_node_argv(config, target, ["docker", "load"])]


def size_argv(image: str) -> list[str]:
    """The image's size on a node: the total a copy's byte count goes towards."""
    return ["docker", "image", "inspect", "--format", "{{.Size}}", image]


async def copy_image(source: Transport, config: Config, target: Node, image: str,
                     moved: Callable[[int], None]) -> str | None:
    """Copy ``image`` from the node of ``source`` to ``target``; ``moved(bytes)`` as the
    count grows. None when the pipeline ended well, else the last lines it said."""
    tail: deque[str] = deque(maxlen=4)
    code: int | None = None
    last = 0.0
    try:
        stream = await source.stream("exec " + argv_command(copy_argv(config, target, image)))
    except NodeError as exc:
        return exc.text
    try:
        async for lines in stream.chunks():
            for line in lines:
                if line.startswith(MARK):
                    code = int(line[len(MARK):].strip() or "255") if \
                        line[len(MARK):].strip().isdigit() else 255
                elif (count := dd_bytes(line)) is not None:
                    now = time.monotonic()
                    if now - last >= REPORT_SECONDS:
                        last = now
                        moved(count)
                elif line.strip() and "records in" not in line and "records out" not in line:
                    tail.append(line.strip()[:300])
    except NodeError as exc:
        return exc.text
    finally:
        await stream.stop()
    if code == 0:
        return None
    return "; ".join(tail) or f"exit status {code if code is not None else 'unknown'}"
