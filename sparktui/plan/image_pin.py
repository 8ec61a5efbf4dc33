"""Pinned images, the pure half: an image reference's parts, a repo digest a node says
it has, whether the nodes agree on one, and whether a mutable tag moved since last time.

Why here: ``sparktui pin`` writes ``repo@sha256:...`` into a recipe, and serve warns when
``:latest`` (or any tag without a digest) now names other bytes than at the recipe's last
serve on that cluster. Both rest on what the nodes' docker says (``RepoDigests``), and a
node's answer is untrusted: a digest must match ``sha256:`` and 64 lowercase hex digits,
and must be of the recipe's own repo, else it is refused, never written into a file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparktui import untrusted_json
from sparktui.config.rules import DIGEST
from sparktui.i18n import N_
from sparktui.said import Code, Said, said

if TYPE_CHECKING:
    from sparktui.plan.model import LaunchPlan

MAX_ANSWER = 64 << 10
"""A node's RepoDigests answer past this is not read (a list of a few references)."""


class PinSaid(Code):
    NO_ANSWER = N_("{node} did not say which digest it has: {why}")
    NO_IMAGE = N_("{node} does not have image {image}")
    NO_DIGEST = N_("{node} has image {image} but no digest of repo {repo} (built or loaded "
                   "there, never pulled from a registry)")
    BAD_ANSWER = N_("{node} answered something that is not a digest of repo {repo}: {answer}")
    DISAGREE = N_("the nodes do not have the same image: {detail}")
    NOT_DOCKER = N_("{recipe} runs no docker image: there is nothing to pin")
    MOVED = N_("{image} now resolves to {now}, not {before} as at this recipe's last serve "
               "on {cluster}: pin it with sparktui pin {recipe}")
    RESOLVED = N_("{image} resolved to {digest} on every node")
    NOT_KEPT = N_("the image's digest could not be kept in {path}: {why}")


@dataclass(frozen=True)
class Reference:
    """An image reference's parts: ``repo[:tag][@digest]``."""

    repo: str
    tag: str | None
    digest: str | None

    @property
    def mutable(self) -> bool:
        """Without a digest the name may come to mean other bytes (``:latest`` first)."""
        return self.digest is None


def parse_reference(image: str) -> Reference:
    """``image``'s repo, tag and digest; the tag's colon is the one after the last ``/``
    (a registry's ``host:port/`` has one too)."""
    name, at, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = None
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    return Reference(name, tag, digest if at else None)


def normal_repo(repo: str) -> str:
    """``repo`` as docker shows it in RepoDigests: Docker Hub's prefixes dropped."""
    for prefix in ("docker.io/library/", "index.docker.io/library/", "docker.io/",
                   "index.docker.io/"):
        if repo.startswith(prefix):
            return repo[len(prefix):]
    return repo


def pinned(repo: str, digest: str) -> str:
    """The reference a recipe is pinned to."""
    return f"{repo}@{digest}"


def read_repo_digests(answer: str) -> list[str]:
    """The ``{{json .RepoDigests}}`` answer as a list of strings (ValueError: not one)."""
    if len(answer) > MAX_ANSWER:
        raise ValueError("too large")
    items = untrusted_json.loads(answer or "null")
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValueError("not a list of strings")
    return items


def repo_digests_in_inspect(body: str) -> list[str]:
    """The RepoDigests of a Docker API image inspect (ValueError: not such an answer)."""
    if len(body) > MAX_ANSWER * 16:
        raise ValueError("too large")
    data = untrusted_json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("not an image")
    return read_repo_digests(json.dumps(data.get("RepoDigests")))


def digest_of(node: str, image: str, repo_digests: list[str]) -> str | Said:
    """The digest of ``image``'s repo among what the node says it has, or why not.

    An entry of another repo is not ours to read; an entry of our repo whose digest is
    not a sha256 is a lie (or a broken daemon), refused with what it said."""
    repo = normal_repo(parse_reference(image).repo)
    found: set[str] = set()
    for entry in repo_digests:
        name, at, digest = entry.partition("@")
        if not at or normal_repo(name) != repo:
            continue
        if not DIGEST.fullmatch(digest):
            return said(PinSaid.BAD_ANSWER, node=node, repo=repo, answer=entry[:120])
        found.add(digest)
    if len(found) > 1:  # one repo, two digests on one node: not one image
        return said(PinSaid.BAD_ANSWER, node=node, repo=repo,
                    answer=", ".join(sorted(found)))
    if not found:
        return said(PinSaid.NO_DIGEST, node=node, image=image, repo=repo)
    return found.pop()


def agreed(digests: dict[str, str | Said]) -> str | list[Said]:
    """The one digest every node has, or the refusals: each node that could not say,
    else the nodes and their digests when they differ."""
    refusals = [d for d in digests.values() if isinstance(d, Said)]
    if refusals:
        return refusals
    values = {d for d in digests.values() if isinstance(d, str)}
    if len(values) == 1:
        return values.pop()
    if not values:
        return []
    detail = ", ".join(f"{node}={d}" for node, d in digests.items())
    return [said(PinSaid.DISAGREE, detail=detail)]


def moved(before: str | None, now: str) -> bool:
    """A mutable tag moved: it was served before, and now means other bytes."""
    return before is not None and before != now


@dataclass(frozen=True)
class DigestReport:
    """What each node of a recipe's plan says its image's digest is (or why it cannot)."""

    recipe: str
    cluster: str
    image: str
    nodes: dict[str, str | Said]

    @property
    def result(self) -> str | list[Said]:
        """The one digest of them all, or the refusals (``agreed``)."""
        return agreed(self.nodes)

    @property
    def pinned_image(self) -> str | None:
        """The reference to pin the recipe to (None: the nodes gave no one digest)."""
        result = self.result
        repo = parse_reference(self.image).repo
        return pinned(repo, result) if isinstance(result, str) else None

    def as_json(self) -> dict[str, object]:
        result = self.result
        return {"recipe": self.recipe, "cluster": self.cluster, "image": self.image,
                "nodes": {n: d if isinstance(d, str) else d.as_json()
                          for n, d in self.nodes.items()},
                "digest": result if isinstance(result, str) else None,
                "pinned": self.pinned_image,
                "refusals": [] if isinstance(result, str) else [r.as_json() for r in result]}


def remembered(plan: LaunchPlan, last: Callable[[str, str, str], str | None]) -> LaunchPlan:
    """``plan`` with the digest its mutable tag resolved to at its last serve on its
    cluster (``last``: the record's lookup, ``config.image_record.last_digest``), so the
    plan says what the tag meant then; a pinned image names its digest already."""
    if not plan.nodes or not parse_reference(plan.image).mutable:
        return plan
    digest = last(plan.cluster, plan.recipe, plan.image)
    return dataclasses.replace(plan, image_digest=digest) if digest else plan
