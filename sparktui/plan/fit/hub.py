"""A fit from the Hub's answers, for a model that is in no node's HF cache: what the
Hub's bodies must look like, and the node fits made of them. Pure: the engine asks
(``sparktui.engine.hub``) and hands the bodies here as bytes.

Every body is untrusted: the engine reads each to its limit (below), JSON goes
through ``untrusted_json``, a size is a whole number of bytes (no bool, no negative, no
text), and a file name from the Hub reaches a sentence only through ``visible``. An
answer of the wrong shape is a reason the fit stays unknown, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

from sparktui import untrusted_json
from sparktui.i18n import N_
from sparktui.plan.fit.calc import UNKNOWN, NodeFit, node_fit
from sparktui.plan.fit.probe import ProbeSaid, Question
from sparktui.plan.fit.shape import Shape, ShapeError, estimated_weight_bytes, parse_shape
from sparktui.said import Code, Said, Size, Text, said
from sparktui.scrub import scrub
from sparktui.visible import shorten, visible

LISTING_LIMIT = 4 << 20
"""The model's info (its file list): a repo of a thousand files is about 100 kB."""
INDEX_LIMIT = 32 << 20
"""model.safetensors.index.json: the largest models' indexes (one line per tensor, some
hundred thousand tensors) are around 10 MB."""
SIZES_LIMIT = 4 << 20
"""The sizes of the safetensors files (paths-info): about 300 bytes a file."""

_COMMIT = re.compile(r"[0-9a-f]{40}")


class HubWhy(Code):
    """Why the Hub gave no figures (the words after "could not ask the Hub: ")."""

    OFFLINE = N_("HF_HUB_OFFLINE is set")
    NO_CLIENT = N_("the Hugging Face client is not installed here ({detail})")
    BAD_ENDPOINT = N_("HF_ENDPOINT {endpoint} is no http:// or https:// address")
    UNREACHABLE = N_("{endpoint} cannot be reached ({detail})")
    NO_ANSWER = N_("{endpoint} did not answer within {seconds:g} s")
    NOT_FOUND = N_("{repo} is not on {endpoint}, or it is private and the token sent (HF_TOKEN) "
                   "has no access to it")
    NOT_FOUND_NO_TOKEN = N_("{repo} is not on {endpoint}, or it is private: no token was sent "
                            "(set HF_TOKEN)")
    GATED = N_("{repo} is gated on {endpoint} and the token sent (HF_TOKEN) has no access to "
               "its files: accept its terms on the Hub")
    GATED_NO_TOKEN = N_("{repo} is gated on {endpoint}: its files need a token (set HF_TOKEN)")
    TOKEN_REFUSED = N_("{endpoint} refused the token sent (HF_TOKEN): HTTP {status}")
    NO_REVISION = N_("{repo} has no revision {revision} on {endpoint}")
    NO_CONFIG = N_("{repo} at {revision} has no {file} on {endpoint}")
    HTTP = N_("{endpoint} answered HTTP {status} to the request for {what}")
    TOO_LARGE = N_("{what} from the Hub is larger than {limit}: not read")
    ENCODED = N_("the Hub sent {what} encoded as {encoding}, though asked for it as it is")
    NOT_JSON = N_("{what} from the Hub is not JSON of the expected shape")
    BAD_TOTAL = N_("model.safetensors.index.json from the Hub has no metadata.total_size as a "
                   "whole number of bytes")
    BAD_SIZE = N_("the Hub gives {file} no size as a whole number of bytes ({value})")
    CONFIG_LACKS = N_("config.json from the Hub has no {key}")


class HubPart(Code):
    """What was asked of the Hub (a file by its name, which has no words to translate)."""

    MODEL_INFO = N_("the model info")
    SIZES = N_("the files' sizes")
    CONFIG = "config.json"
    INDEX = "model.safetensors.index.json"


class HubSaid(Code):
    """What a node's fit says of the Hub."""

    FROM_HUB = N_("in no node's HF cache: figures from the Hub's files ({endpoint}: {repo} at "
                  "{revision}, commit {commit})")
    NOT_ASKED = N_("could not ask the Hub: {why}")
    NOT_USED = N_("the Hub's answer was not used: {why}")


class HubError(Exception):
    """A reason the Hub's answer gives no figures (``said``: a ``HubWhy``); ``asked``:
    the Hub answered (its answer was not used) rather than could not be asked."""

    def __init__(self, why: Said, asked: bool = True):
        super().__init__(why.code.code)
        self.said, self.asked = why, asked


@dataclass(frozen=True)
class Listing:
    """The model info's part that is read: the commit it names and its files."""

    commit: str
    files: frozenset[str]


@dataclass(frozen=True)
class HubFigures:
    """What the Hub's files give, for every node alike."""

    endpoint: str
    repo: str
    revision: str
    commit: str
    shape: Shape
    weights: int
    weights_from: str  # "index", "sizes" or "config"


def shown(name: str) -> str:
    """A name from the Hub, as a sentence may hold it: a secret in it (a server may echo
    the token) as stars, escapes written out, at most 120 characters."""
    return visible(shorten(scrub(name)))


def _json(body: bytes, what: HubPart) -> Any:
    try:
        return untrusted_json.loads(body)
    except ValueError:
        raise HubError(said(HubWhy.NOT_JSON, what=said(what))) from None


def parse_listing(body: bytes, revision: str) -> Listing:
    """The model info (``/api/models/{repo}/revision/{rev}``): ``sha`` and ``siblings``."""
    data = _json(body, HubPart.MODEL_INFO)
    siblings = data.get("siblings") if isinstance(data, dict) else None
    if not isinstance(siblings, list):
        raise HubError(said(HubWhy.NOT_JSON, what=said(HubPart.MODEL_INFO)))
    files = set()
    for entry in siblings:
        name = entry.get("rfilename") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            raise HubError(said(HubWhy.NOT_JSON, what=said(HubPart.MODEL_INFO)))
        files.add(name)
    sha = data.get("sha")
    commit = sha if isinstance(sha, str) and _COMMIT.fullmatch(sha) else revision
    return Listing(commit, frozenset(files))


def in_folder(files: frozenset[str], folder: str) -> list[str]:
    """The ``*.safetensors`` right in ``folder`` (what the engine loads; the node's probe
    reads the same glob), sorted."""
    prefix = folder + "/" if folder else ""
    return sorted(f for f in files if f.startswith(prefix) and f.endswith(".safetensors")
                  and "/" not in f[len(prefix):])


def _bytes(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_index(body: bytes) -> int:
    """``metadata.total_size`` of model.safetensors.index.json."""
    data = _json(body, HubPart.INDEX)
    meta = data.get("metadata") if isinstance(data, dict) else None
    total = meta.get("total_size") if isinstance(meta, dict) else None
    if not _bytes(total):
        raise HubError(said(HubWhy.BAD_TOTAL))
    return total


def parse_sizes(body: bytes, names: list[str]) -> int:
    """The sum of ``names``' sizes in a paths-info answer (an LFS file's size is its
    ``lfs.size``, as ``X-Linked-Size`` of its resolve)."""
    data = _json(body, HubPart.SIZES)
    if not isinstance(data, list):
        raise HubError(said(HubWhy.NOT_JSON, what=said(HubPart.SIZES)))
    found: dict[str, Any] = {}
    for entry in data:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            lfs = entry.get("lfs")
            found[entry["path"]] = lfs.get("size") if isinstance(lfs, dict) else entry.get("size")
    total = 0
    for name in names:
        value = found.get(name)
        if not _bytes(value):
            raise HubError(said(HubWhy.BAD_SIZE, file=shown(name),
                                value=shown(repr(value)) if name in found else "-"))
        total += value
    return total


def figures(config_body: bytes, weights: tuple[int, str] | None, question: Question,
            where: tuple[str, str, str, str]) -> HubFigures:
    """The model's shape and weights from the Hub's config.json and, when there was one,
    the index's total or the files' sizes (None: counted from config.json, as for a
    snapshot that holds no weights). ``where``: endpoint, repo, revision, commit."""
    config = _json(config_body, HubPart.CONFIG)
    if not isinstance(config, dict):
        raise HubError(said(HubWhy.NOT_JSON, what=said(HubPart.CONFIG)))
    settings = question.settings
    try:
        shape = parse_shape(config)
        if settings is not None and settings.max_model_len is None and not shape.max_position:
            raise ShapeError("max_position_embeddings")
        total, source = weights or (estimated_weight_bytes(config), "config")
    except ShapeError as exc:
        raise HubError(said(HubWhy.CONFIG_LACKS, key=str(exc))) from None
    return HubFigures(*where, shape, total, source)


def not_cached(fit: NodeFit) -> bool:
    """Whether ``fit`` is unknown only because the node's HF cache lacks the model."""
    return (fit.verdict == UNKNOWN and isinstance(fit.reason, Said)
            and fit.reason.code is ProbeSaid.NOT_CACHED)


def refit(fit: NodeFit, answer: HubFigures | HubError, question: Question) -> NodeFit:
    """A node the model is not cached on, with the Hub's figures; or unknown as it was,
    saying why the Hub gave none."""
    if isinstance(answer, HubError):
        why: Text = said(HubSaid.NOT_USED if answer.asked else HubSaid.NOT_ASKED,
                         why=answer.said)
        return replace(fit, hub=why)
    if question.settings is None:
        return fit
    made = node_fit(fit.node, fit.mem_total, answer.weights, answer.weights_from,
                    answer.shape, question.settings, question.layout)
    return replace(made, hub=said(HubSaid.FROM_HUB, endpoint=answer.endpoint,
                                  repo=answer.repo, revision=shown(answer.revision),
                                  commit=answer.commit))


def limit_said(what: HubPart, limit: int) -> Said:
    return said(HubWhy.TOO_LARGE, what=said(what), limit=Size(limit))
