"""The image half of ``sparktui pull``, decided without a node: which ID counts, who
lacks it, the copy schedule, and what a node's answers may be.

Why pure: the schedule and the trust pairs are fixed before any byte moves, so the pairs
that must trust each other are checked first, and a refusal changes nothing. A node's
answer (an image ID, a size, a progress line) is untrusted text: each is checked here,
and one that does not read as what it claims is never counted as the image.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sparktui.i18n import N_
from sparktui.plan.pull.model import parse_free
from sparktui.said import Code, Said, Size, said

IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")
MAX_IMAGE_BYTES = 1 << 44
"""A size a node may claim for an image (16 TiB): anything above is not believed."""
DD_BYTES = re.compile(r"(\d{1,15}) bytes")


class PullSaid(Code):
    PRESENT = N_("{image} is on {node} already ({id})")
    PULLED = N_("{node} pulled {image} from the registry ({id})")
    COPIED = N_("{image} copied from {source} to {node} ({id})")
    PULL_FAILED = N_("{node} could not pull {image}: {why}")
    COPY_FAILED = N_("copying {image} from {source} to {node} failed: {why}")
    ID_DIFFERS = N_("{node} has {image} as {got} after the copy from {source}, which has "
                    "{want}: not the same image")
    OTHER_ID = N_("{node} has {image} as {got}, not {want} (as {source} has it): it gets "
                  "a copy")
    UNTRUSTED = N_("{source} cannot reach {target} over SSH ({why}); the nodes must trust "
                   "each other before a pull moves anything: `sparktui pull --help` says "
                   "how to set it up")
    BAD_ANSWER = N_("{node} answered \"{answer}\" for the image ID of {image}: not an image ID")
    NO_IMAGES = N_("recipe {recipe} runs no image: nothing to pull")
    NOTHING_TO_DO = N_("{image} is on every node ({id}): nothing moved")
    DONE = N_("{image} is on every node ({id})")
    DIGEST = N_("the repo digest of {image} on {node} is {digest}")
    DISK_SHORT = N_("{node} needs {need} for {image} in docker's {folder} but has {free} free")
    SIZE_UNREAD = N_("{node} did not say the size of {image} ({answer}): no disk can be "
                     "checked against it")
    DISK_UNREAD = N_("{node}: the free space of docker's folder could not be read ({answer})")
    DOWNLOAD_SHORT = N_("{node} needs about {need} for {image} in docker's {folder} (a "
                        "{download} download, unpacked) but has {free} free")
    DOWNLOAD_UNREAD = N_("{node} could not read the size of {image} from its registry "
                         "({answer}): its disk is checked only after the pull, before any "
                         "copy")


def image_id(answer: str) -> str | None:
    """``answer`` when it is an image ID (``sha256:`` and 64 lowercase hex digits)."""
    answer = answer.strip()
    return answer if IMAGE_ID.fullmatch(answer) else None


def image_size(answer: str) -> int | None:
    """A node's ``{{.Size}}`` of an image, when it reads as a believable byte count."""
    answer = answer.strip()
    if not answer.isdigit() or len(answer) > 15:
        return None
    size = int(answer)
    return size if 0 < size <= MAX_IMAGE_BYTES else None


def reference(found: Mapping[str, str | None], order: Sequence[str]) -> tuple[str, str] | None:
    """The node whose image counts and its ID: the first of ``order`` (the plan's nodes,
    the head first) that has one. None: no node has it (one pulls from the registry)."""
    for name in order:
        if found.get(name):
            return name, found[name] or ""
    return None


@dataclass(frozen=True)
class Schedule:
    """Who pulls from the registry (None: a node has it already), and the copies in
    rounds: in each round every node that has the image copies to one that lacks it, so
    the nodes having it double each round."""

    puller: str | None
    rounds: list[list[tuple[str, str]]] = field(default_factory=list)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every (source, target) of the schedule: the pairs that must trust each other."""
        return [pair for one in self.rounds for pair in one]

    @property
    def moves(self) -> bool:
        return self.puller is not None or bool(self.rounds)


def schedule(order: Sequence[str], having: Sequence[str]) -> Schedule:
    """The plan for nodes ``order`` (head first) of which ``having`` have the image.
    None has it: the first node pulls it, then copies go out from it."""
    sources = [n for n in order if n in having]
    puller = None
    if not sources:
        puller = order[0] if order else None
        sources = [order[0]] if order else []
    lacking = [n for n in order if n not in sources]
    rounds: list[list[tuple[str, str]]] = []
    while lacking:
        pairs = list(zip(sources, lacking, strict=False))
        rounds.append(pairs)
        lacking = lacking[len(pairs):]
        sources = sources + [target for _source, target in pairs]
    return Schedule(puller, rounds)


def dd_bytes(line: str) -> int | None:
    """The byte count in a ``dd status=progress`` line (``123 bytes (...) copied``)."""
    found = DD_BYTES.match(line.strip())
    return int(found.group(1)) if found else None


@dataclass
class LayerProgress:
    """The registry pull's bytes as the Docker API's JSON stream says them, per layer."""

    layers: dict[str, tuple[int, int]] = field(default_factory=dict)
    error: str | None = None

    def read(self, line: str) -> None:
        """One line of ``POST /images/create``'s stream; what does not read is skipped."""
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if isinstance(message.get("error"), str):
            self.error = message["error"][:300]
            return
        layer, status = message.get("id"), message.get("status")
        if not isinstance(layer, str) or not isinstance(status, str):
            return
        detail = message.get("progressDetail")
        if status == "Downloading" and isinstance(detail, dict):
            current, total = detail.get("current"), detail.get("total")
            if isinstance(current, int) and isinstance(total, int) \
                    and _count(current) and _count(total):
                self.layers[layer[:80]] = (min(current, total), total)
        elif status in ("Download complete", "Pull complete") and layer in self.layers:
            total = self.layers[layer][1]
            self.layers[layer] = (total, total)

    @property
    def done(self) -> int:
        return sum(d for d, _t in self.layers.values())

    @property
    def total(self) -> int:
        return sum(t for _d, t in self.layers.values())


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) \
        and 0 <= value <= MAX_IMAGE_BYTES


DOCKER_FOLDER = re.compile(r"/[A-Za-z0-9._/+@=-]{0,4000}")
"""docker's data root as a node names it (``docker info``): an absolute plain path."""


def disk_refusal(node: str, image: str, need: int, answer: str,
                 download: int | None = None) -> Said | None:
    """None when the node's docker folder holds ``need`` bytes more; else the refusal
    with the figures (``download``: the registry's size the need was made from).
    ``answer``: the folder on its first line, ``df -PB1``'s last line on its second
    (untrusted; a node that says anything else is named, not believed)."""
    lines = answer.strip().splitlines()
    folder = lines[0].strip() if lines else ""
    free = parse_free(lines[-1]) if len(lines) >= 2 else None
    if DOCKER_FOLDER.fullmatch(folder) is None or free is None:
        return said(PullSaid.DISK_UNREAD, node=node, answer=answer.strip()[:120])
    if free < need and download is not None:
        return said(PullSaid.DOWNLOAD_SHORT, node=node, need=Size(need), image=image,
                    folder=folder, download=Size(download), free=Size(free))
    if free < need:
        return said(PullSaid.DISK_SHORT, node=node, need=Size(need), image=image,
                    folder=folder, free=Size(free))
    return None
