"""Stub of ``nvidia-container-runtime-hook`` for the test daemons (stdlib only).

dockerd accepts ``--gpus`` only with the hook on its PATH, and runs it as a prestart hook
of every such container; each daemon's ``bin/`` holds a two-line stub that runs this as
``python -I gpu_hook.py NODE_JSON`` (dockerd.py). There is no GPU here: it passes, unless
the node's gpu.json says nvidia-smi fails (``set_gpu(fail=True)``); then it fails as the
real one does on a node whose driver does not answer.
"""

import json
import os
import sys


def broken(node_file: str) -> bool:
    try:
        with open(node_file) as f:
            state = json.load(f)["state"]
        with open(os.path.join(state, "gpu.json")) as f:
            return bool(json.load(f).get("fail"))
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return False


if __name__ == "__main__":
    if broken(sys.argv[1]):
        sys.exit("nvidia-container-cli: initialization error: nvml error: driver not loaded")
