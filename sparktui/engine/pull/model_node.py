"""What a model pull runs on a node: fixed program texts, every value an argument.

Why each piece is here and not a shell line: file names, hashes and folders come from
the Hub and the config; they reach a node only as argv words (``bash -c SCRIPT _ ARG...``
quoted once by ``argv_command``), never inside a script's text. The token reaches the
download container on its stdin, never its argv or environment.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sparktui.config.models import Config, Node
from sparktui.engine.pull.fabric import destination, ssh_options
from sparktui.engine.remote.transport import Completed, Transport, argv_command
from sparktui.plan.pull.model import DOWNLOAD, HubFile, Snapshot, link_target, parse_free

PARTIAL = ".sparktui-partial"
"""rsync's folder (in ``blobs/``) for a blob whose copy was interrupted: it never has
the blob's own name until the copy is whole; the next copy resumes from it."""
HASH_RATE = 50_000_000
"""Bytes a second a node is given to hash (a Spark does several hundred MB/s)."""

_SURVEY = r"""d=$1
while [ ! -d "$d" ]; do d=$(dirname -- "$d"); done
echo @@df; df -PB1 -- "$d" | tail -n 1
echo @@blobs
if [ -d "$2" ]; then find "$2" -maxdepth 2 -type f -printf '%f %s\n' | head -n 20000; fi
"""

_VERIFY = r"""cd -- "$1" || exit 3; remove=$2; shift 2
while [ $# -ge 3 ]; do
  kind=$1 blob=$2 size=$3; shift 3
  if [ ! -f "$blob" ]; then echo "missing $blob"; continue; fi
  if [ "$kind" = lfs ]; then got=$(sha256sum -- "$blob")
  else got=$( { printf 'blob %s\0' "$size"; cat -- "$blob"; } | sha1sum); fi
  if [ "${got%% *}" = "$blob" ]; then echo "ok $blob"
  else echo "bad $blob"; if [ "$remove" = 1 ]; then rm -f -- "$blob"; fi; fi
done
"""

_LINK = r"""root=$1 commit=$2 ref=$3; shift 3
while [ $# -ge 2 ]; do
  p=$root/snapshots/$commit/$1
  mkdir -p -- "${p%/*}" && ln -sfn -- "$2" "$p" || exit 1; shift 2
done
if [ -n "$ref" ]; then
  r=$root/refs/$ref; mkdir -p -- "${r%/*}" || exit 1
  printf %s "$commit" > "$r.sparktui-tmp" && mv -f -- "$r.sparktui-tmp" "$r"
fi
"""

_RSYNC = r"""f=$1; shift; exec 3<&0
"$@" <&3 3<&- & p=$!; echo "$p" > "$f"; wait "$p"; rc=$?; rm -f -- "$f"; exit "$rc"
"""

_KILL = r"""[ -f "$1" ] && kill -TERM "$(cat -- "$1")" 2>/dev/null; rm -f -- "$1"; true"""

DOWNLOAD_PROGRAM = r"""
import os, sys
endpoint = sys.stdin.readline().strip()
token = sys.stdin.readline().strip() or None
wanted = [line.rstrip("\n").split("\t", 2) for line in sys.stdin if line.strip()]
for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN"):
    os.environ.pop(name, None)
os.environ.update(HF_ENDPOINT=endpoint, HF_HUB_DISABLE_TELEMETRY="1",
                  HF_HUB_DISABLE_PROGRESS_BARS="1")
from huggingface_hub import hf_hub_url
from huggingface_hub.file_download import http_get
from huggingface_hub.utils import build_hf_headers
root, repo, commit, suffix = sys.argv[1:5]
blobs = os.path.join(root, "blobs")
os.makedirs(blobs, exist_ok=True)
headers = build_hf_headers(token=token)
for blob, size, path in wanted:
    final = os.path.join(blobs, blob)
    if os.path.exists(final):
        continue
    part, size = final + suffix, int(size)
    have = os.path.getsize(part) if os.path.exists(part) else 0
    if have > size:
        os.remove(part)
        have = 0
    with open(part, "r+b" if have else "wb") as out:
        out.seek(have)
        http_get(hf_hub_url(repo, path, revision=commit, endpoint=endpoint), out,
                 resume_size=have, headers=headers, expected_size=size)
    os.replace(part, final)
print("downloaded")
"""
"""huggingface_hub's own HTTP download (its endpoint, token headers, redirects, retries)
of each blob the node lacks, written under a partial name and resumed from its size:
``snapshot_download`` of huggingface_hub 2.x starts every file again in a temporary file
of its own (``.<id>.incomplete``), which an interrupted pull would leave behind."""


def _bash(script: str, *args: str) -> str:
    return argv_command(["bash", "-c", script, "_", *args])


@dataclass(frozen=True)
class Survey:
    free: int | None
    lines: list[str]


async def survey(transport: Transport, root: str) -> Survey:
    """Free bytes where ``root`` (the model's folder) is or would be, and ``NAME SIZE``
    of every file under its ``blobs/`` (partial copies included)."""
    done = await transport.run(_bash(_SURVEY, root, f"{root}/blobs"))
    part, free, lines = "", None, []
    for line in done.stdout.splitlines():
        if line.startswith("@@"):
            part = line
        elif part == "@@df":
            free = parse_free(line)
        elif part == "@@blobs":
            lines.append(line)
    return Survey(free, lines)


def hash_timeout(transport: Transport, files: Sequence[HubFile]) -> float:
    return transport.command_timeout + sum(f.size for f in files) / HASH_RATE


async def verify(transport: Transport, root: str, files: Sequence[HubFile],
                 remove: bool) -> tuple[set[str], set[str]]:
    """Which of ``files``' blobs hash to their Hub hash on the node (sha256 for an LFS
    file, git's blob sha1 otherwise) and which do not (``remove``: those are deleted)."""
    if not files:
        return set(), set()
    args = [w for f in files for w in ("lfs" if f.lfs else "git", f.blob, str(f.size))]
    done = await transport.run(_bash(_VERIFY, f"{root}/blobs", "1" if remove else "0", *args),
                               timeout=hash_timeout(transport, files))
    good: set[str] = set()
    bad: set[str] = set()
    for line in done.stdout.splitlines():
        state, _, blob = line.partition(" ")
        (good if state == "ok" else bad if state == "bad" else set()).add(blob)
    wanted = {f.blob for f in files}
    return good & wanted, bad & wanted


async def link(transport: Transport, root: str, snapshot: Snapshot) -> Completed:
    """The snapshot's links to its blobs, then ``refs/<revision>`` (none when the
    revision is the commit itself, as huggingface_hub does)."""
    ref = "" if snapshot.revision == snapshot.commit else snapshot.revision
    args = [w for f in snapshot.files for w in (f.path, link_target(f.path, f.blob))]
    return await transport.run(_bash(_LINK, root, snapshot.commit, ref, *args))


async def has_image(transport: Transport, image: str) -> bool:
    done = await transport.run(argv_command(["docker", "image", "inspect", "--format",
                                             "{{.Id}}", image]))
    return done.ok


async def user_ids(transport: Transport) -> str | None:
    """``UID:GID`` of the ssh user on the node, so the cache's files are the user's."""
    done = await transport.run(argv_command(["id", "-u"]))
    group = await transport.run(argv_command(["id", "-g"]))
    uid, gid = done.stdout.strip(), group.stdout.strip()
    return f"{uid}:{gid}" if uid.isdecimal() and gid.isdecimal() else None


def container_name() -> str:
    return f"sparktui-pull-{secrets.token_hex(6)}"


def download_argv(name: str, image: str, hub: str, root: str, snapshot: Snapshot,
                  user: str | None) -> list[str]:
    """huggingface_hub in the recipe's own image, the node's HF cache mounted at the
    same path; the endpoint, the token and the files come on stdin."""
    return ["docker", "run", "--rm", "-i", "--name", name, "--network", "host",
            *(["--user", user] if user else []), "-e", "HOME=/tmp",
            "--entrypoint", "python3", "-v", f"{hub}:{hub}", image,
            "-c", DOWNLOAD_PROGRAM, root, snapshot.repo, snapshot.commit, DOWNLOAD]


async def download(transport: Transport, argv: list[str], endpoint: str,
                   token: str | None, files: Sequence[HubFile], timeout: float) -> Completed:
    """The files as ``BLOB<tab>SIZE<tab>PATH`` lines (a path holds no tab or newline:
    ``plan.pull.model`` checked it)."""
    listing = "".join(f"{f.blob}\t{f.size}\t{f.path}\n" for f in files)
    return await transport.run(argv_command(argv),
                               stdin=f"{endpoint}\n{token or ''}\n{listing}", timeout=timeout)


async def remove_container(transport: Transport, name: str) -> None:
    await transport.run(argv_command(["docker", "rm", "-f", name]))


def pid_file(root: str) -> str:
    return f"{root}/.sparktui-rsync-{secrets.token_hex(6)}.pid"


def rsync_argv(config: Config, target: Node, source_root: str, target_root: str) -> list[str]:
    """rsync of the blobs named on its stdin, over the fabric ssh; an interrupted blob
    waits in ``PARTIAL`` under a name of its own until the next copy resumes it."""
    return ["rsync", "-t", "--partial",
            f"--partial-dir={PARTIAL}", "--files-from=-", "--no-relative",
            "-e", argv_command(ssh_options(target)),
            f"{source_root}/blobs/", f"{destination(config, target)}:{target_root}/blobs/"]


async def copy(transport: Transport, argv: list[str], pid: str, files: Sequence[HubFile],
               timeout: float) -> Completed:
    names = "".join(f"{f.blob}\n" for f in files)
    return await transport.run(_bash(_RSYNC, pid, *argv), stdin=names, timeout=timeout)


async def stop_copy(transport: Transport, pid: str) -> None:
    await transport.run(_bash(_KILL, pid))


async def make_blobs(transport: Transport, root: str) -> Completed:
    return await transport.run(argv_command(["mkdir", "-p", "--", f"{root}/blobs"]))
