"""A model's snapshot as the Hub describes it, checked as untrusted, and what a node's
HF cache must hold for it (pure: the engine asks, ``sparktui.engine.pull.model_hub``).

Why so strict: every file path, size and hash from the Hub ends up in a path on every
node (``blobs/<hash>``, ``snapshots/<commit>/<path>``). A path with ``..``, an absolute
one, odd characters, a size out of bounds or a hash that is not one is refused, naming
the file, before any node is touched. The layout is huggingface_hub's own: a blob is
named by the file's LFS sha256, or by its git blob sha1 when it is no LFS file (its
``ETag``), so the engine and ``hf`` find it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sparktui import untrusted_json
from sparktui.i18n import N_
from sparktui.said import Code, Said, Size, said
from sparktui.scrub import scrub
from sparktui.visible import shorten, visible

MAX_FILES = 10_000
"""More files than any model repo has (the largest have a few thousand)."""
MAX_FILE_SIZE = 1 << 40
"""1 TiB: no single file of a model is larger; a larger size is a lie."""
DOWNLOAD = ".sparktui-download"
"""The suffix of a blob being downloaded: never the blob's own name until it is whole
(then renamed); the next pull resumes it from its size with a Range request."""
MAX_PATH = 400

_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA1 = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+=,@ -]*")
_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/-]*")


class ModelSaid(Code):
    """What a model pull says: refusals, failures and what happened on a node."""

    BAD_LISTING = N_("the Hub's file list for {repo} is not JSON of the expected shape")
    BAD_COMMIT = N_("the Hub names no commit for {repo} at {revision}")
    BAD_REVISION = N_("the revision {revision} is no plain branch, tag or commit name")
    BAD_PATH = N_("the Hub lists a file {file} whose name is no plain relative path: refused")
    BAD_SIZE = N_("the Hub gives {file} no size within bounds ({value})")
    BAD_HASH = N_("the Hub gives {file} no valid hash")
    TOO_MANY = N_("the Hub lists too many files for {repo} (at most {limit}): refused")
    DISK_SHORT = N_("{node} needs {need} for {repo} in {folder} but has {free} free")
    DISK_UNREAD = N_("{node}: the free space of {folder} could not be read")
    NO_IMAGE = N_("{image} is not on {node}, which would download {repo}: pull the image "
                  "first (sparktui pull --image-only)")
    DOWNLOAD_FAILED = N_("the download of {repo} on {node} failed ({detail})")
    COPY_FAILED = N_("the copy of {repo} from {source} to {node} failed ({detail})")
    BAD_FILE = N_("{file} of {repo} on {node} does not match the Hub's hash: removed")
    MISSING_FILE = N_("{file} of {repo} is not on {node} after its transfer")
    NO_REPO = N_("the recipe's model {model} is no Hugging Face repo id: nothing to pull")
    UNREACHABLE = N_("{node} did not answer ({detail})")
    ALREADY = N_("{repo} at {commit} is already in {node}'s HF cache")
    DOWNLOADED = N_("{repo} at {commit} downloaded from the Hub onto {node} ({size})")
    COPIED = N_("{repo} at {commit} copied from {source} to {node} ({size})")


class PullRefused(Exception):
    """Why a pull does nothing (a ``ModelSaid``)."""

    def __init__(self, why: Said, node: str | None = None):
        super().__init__(why.code.code)
        self.said, self.node = why, node


@dataclass(frozen=True)
class HubFile:
    """One file of the snapshot: ``blob`` is its name under ``blobs/``."""

    path: str
    size: int
    blob: str
    lfs: bool


@dataclass(frozen=True)
class Snapshot:
    repo: str
    revision: str
    commit: str
    files: tuple[HubFile, ...]

    @property
    def blobs(self) -> dict[str, HubFile]:
        """One file per blob (two paths with the same content share one)."""
        return {f.blob: f for f in self.files}

    @property
    def total(self) -> int:
        return sum(f.size for f in self.blobs.values())


def shown(name: str) -> str:
    return visible(shorten(scrub(name)))


def check_revision(revision: str) -> str:
    if (not _REVISION.fullmatch(revision) or ".." in revision or revision.endswith("/")
            or len(revision) > 200):
        raise PullRefused(said(ModelSaid.BAD_REVISION, revision=shown(revision)))
    return revision


def check_path(path: Any) -> str:
    """A Hub file path as a relative path of plain segments, or a refusal naming it."""
    text = path if isinstance(path, str) else repr(path)
    if (not isinstance(path, str) or not path or len(path) > MAX_PATH
            or not all(_SEGMENT.fullmatch(part) and part not in (".", "..")
                       for part in path.split("/"))):
        raise PullRefused(said(ModelSaid.BAD_PATH, file=shown(text)))
    return path


def _size(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_FILE_SIZE:
        raise PullRefused(said(ModelSaid.BAD_SIZE, file=shown(path), value=shown(repr(value))))
    return value


def parse_listing(body: bytes, repo: str, revision: str) -> tuple[str, list[str]]:
    """The model info at the revision: its commit and its file names (checked)."""
    try:
        data = untrusted_json.loads(body)
    except ValueError:
        data = None
    siblings = data.get("siblings") if isinstance(data, dict) else None
    if not isinstance(siblings, list):
        raise PullRefused(said(ModelSaid.BAD_LISTING, repo=repo))
    if len(siblings) > MAX_FILES:
        raise PullRefused(said(ModelSaid.TOO_MANY, limit=MAX_FILES, repo=repo))
    names = [check_path(s.get("rfilename") if isinstance(s, dict) else s) for s in siblings]
    sha = data.get("sha") if isinstance(data, dict) else None
    if not isinstance(sha, str) or not _COMMIT.fullmatch(sha):
        raise PullRefused(said(ModelSaid.BAD_COMMIT, repo=repo, revision=shown(revision)))
    return sha, names


def parse_files(body: bytes, repo: str, revision: str, commit: str,
                names: list[str]) -> Snapshot:
    """paths-info at the commit: each listed file's size and hash (LFS: ``lfs.oid``, a
    sha256, and ``lfs.size``; else ``oid``, the git blob sha1, and ``size``)."""
    try:
        data = untrusted_json.loads(body)
    except ValueError:
        data = None
    if not isinstance(data, list) or len(data) > MAX_FILES:
        raise PullRefused(said(ModelSaid.BAD_LISTING, repo=repo))
    found: dict[str, dict[str, Any]] = {}
    for entry in data:
        if not isinstance(entry, dict):
            raise PullRefused(said(ModelSaid.BAD_LISTING, repo=repo))
        found[check_path(entry.get("path"))] = entry
    files = []
    for name in names:
        entry = found.get(name)
        if entry is None:
            raise PullRefused(said(ModelSaid.BAD_HASH, file=shown(name)))
        lfs = entry.get("lfs")
        if isinstance(lfs, dict):
            oid, size, grammar = lfs.get("oid") or lfs.get("sha256"), lfs.get("size"), _SHA256
        else:
            oid, size, grammar = entry.get("oid"), entry.get("size"), _SHA1
        if not isinstance(oid, str) or not grammar.fullmatch(oid):
            raise PullRefused(said(ModelSaid.BAD_HASH, file=shown(name)))
        files.append(HubFile(name, _size(size, name), oid, isinstance(lfs, dict)))
    return Snapshot(repo, revision, commit, tuple(files))


def lacking(snapshot: Snapshot, verified: set[str]) -> list[HubFile]:
    """The blobs a node must be given: those not verified there."""
    return [f for b, f in sorted(snapshot.blobs.items()) if b not in verified]


def need_bytes(files: list[HubFile]) -> int:
    return sum(f.size for f in files)


def disk_refusal(node: str, folder: str, need: int, free: int | None,
                 repo: str) -> Said | None:
    """None when ``free`` holds ``need``; else the refusal that names the figures."""
    if need == 0:
        return None
    if free is None:
        return said(ModelSaid.DISK_UNREAD, node=node, folder=shown(folder))
    if free < need:
        return said(ModelSaid.DISK_SHORT, node=node, need=Size(need), free=Size(free),
                    repo=repo, folder=shown(folder))
    return None


def download_node(order: list[str], verified: dict[str, set[str]],
                  snapshot: Snapshot) -> str:
    """The node that fetches from the Hub: the one holding the most of it already (its
    bytes), else the first (the head)."""
    blobs = snapshot.blobs

    def held(node: str) -> int:
        return sum(blobs[b].size for b in verified.get(node, set()) if b in blobs)

    return max(order, key=lambda n: (held(n), -order.index(n)))


def fan_out(source: str, targets: list[str]) -> list[list[tuple[str, str]]]:
    """Rounds of (source, target) copies: each round every node that has the snapshot
    gives it to one that lacks it, so the holders double (1, 2, 4, ...)."""
    holders, waiting, rounds = [source], list(targets), []
    while waiting:
        pairs = list(zip(holders, waiting, strict=False))
        waiting = waiting[len(pairs):]
        rounds.append(pairs)
        holders += [target for _, target in pairs]
    return rounds


def link_target(path: str, blob: str) -> str:
    """The symlink ``snapshots/<commit>/<path>`` points at, relative as huggingface_hub
    writes it (``../../blobs/<hash>``, one ``../`` more per folder of ``path``)."""
    return "../" * (2 + path.count("/")) + f"blobs/{blob}"


def parse_free(line: str) -> int | None:
    """The available bytes of ``df -PB1``'s last line (untrusted: a whole number)."""
    fields = line.split()
    if len(fields) >= 6 and fields[3].isdecimal() and len(fields[3]) <= 20:
        return int(fields[3])
    return None


def complete(lines: list[str], blobs: dict[str, HubFile]) -> set[str]:
    """The wanted blobs present under their own name at their full size (to be hashed
    before they count)."""
    found = set()
    for line in lines:
        name, _, size = line.strip().partition(" ")
        if name in blobs and size.isdecimal() and len(size) <= 20 \
                and int(size) == blobs[name].size:
            found.add(name)
    return found


def parse_present(lines: list[str], blobs: dict[str, HubFile]) -> dict[str, int]:
    """Bytes of each wanted blob on a node (``NAME SIZE`` lines; a partial download
    (``.sparktui-download``) or a partial copy counts toward its blob); names not wanted
    are ignored."""
    present: dict[str, int] = {}
    for line in lines:
        name, _, size = line.strip().partition(" ")
        blob = name.removesuffix(DOWNLOAD)
        if blob.startswith("."):  # rsync's file being written: .BLOB.XXXXXX
            blob = blob[1:].rpartition(".")[0]
        if blob in blobs and size.isdecimal() and len(size) <= 20:
            present[blob] = max(present.get(blob, 0), min(int(size), blobs[blob].size))
    return present
