"""``runc create`` for the test daemons, after two changes to the new container's spec.

Run by each daemon's runtime (``RUNTIME_WRAPPER`` in dockerd.py) as
``python -I oci_runtime.py NODE_JSON runc-args...``; stdlib only. The test bed's one
concession, for what separate machines would give for free:
1. RLIMIT_MEMLOCK is dropped (--ulimit memlock=-1): this sandbox cannot raise the hard
   limit, even as root. Nothing else of the container changes. ``runc exec`` (``docker
   exec``) gets its process the container's rlimits: dropped there too.
2. The process is told which simulated node it runs on (SPARKTUI_NODE_ADDR/NAME/STATE,
   SPARKTEST_HOST_NETWORK) and the node's state folder is mounted read-only at the same
   path, so the test engine binds its node's address in the shared host network and
   reads the test's knobs (engine.json, gpu.json).
3. SMG's libraries (testimage/router.py: ~130 MB, installed once on this machine)
   are bound read-only at the path the router test image expects, rather than copied
   into an image layer per daemon.
"""

import json
import os
import sys

RUNC = "/usr/sbin/runc"


def amend(spec: dict, node: dict | None) -> None:
    proc = spec.setdefault("process", {})
    proc["rlimits"] = [r for r in proc.get("rlimits") or [] if r.get("type") != "RLIMIT_MEMLOCK"]
    if not node:
        return
    # --network host joins the daemon's handle on this machine's netns: netns/default
    spaces = spec.get("linux", {}).get("namespaces", [])
    net = [n for n in spaces if n.get("type") == "network"]
    host_net = not net or net[0].get("path", "").endswith("/netns/default")
    env = [e for e in proc.get("env", []) if not e.startswith(("SPARKTUI_NODE_", "SPARKTEST_"))]
    env += ["SPARKTUI_NODE_ADDR=" + node["addr"], "SPARKTUI_NODE_NAME=" + node["name"],
            "SPARKTUI_NODE_STATE=" + node["state"], "SPARKTEST_DOCKERD=" + node["daemon"],
            "SPARKTEST_HOST_NETWORK=" + ("1" if host_net else "0")]
    proc["env"] = env
    spec.setdefault("mounts", []).append({"destination": node["state"], "type": "bind",
                                          "source": node["state"], "options": ["rbind", "ro"]})
    for source, destination in node.get("mounts") or []:
        spec["mounts"].append({"destination": destination, "type": "bind", "source": source,
                               "options": ["rbind", "ro"]})


def main(node_file: str, args: list[str]) -> None:
    if "create" in args and "--bundle" in args:
        path = os.path.join(args[args.index("--bundle") + 1], "config.json")
        with open(path) as f:
            spec = json.load(f)
        try:
            with open(node_file) as f:
                node = json.load(f)
        except (OSError, ValueError):
            node = None
        amend(spec, node)
        with open(path, "w") as f:
            json.dump(spec, f)
    elif "exec" in args and "--process" in args:
        path = args[args.index("--process") + 1]
        with open(path) as f:
            process = json.load(f)
        process["rlimits"] = [r for r in process.get("rlimits") or []
                              if r.get("type") != "RLIMIT_MEMLOCK"]
        with open(path, "w") as f:
            json.dump(process, f)
    os.execv(RUNC, ["runc", *args])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
