"""``pull_model``: a recipe's model snapshot into every engine node's HF cache,
downloaded once from the Hub and copied node to node over the fabric.

The order, and why:
1. the Hub is asked what the snapshot is (``model_hub``: commit, paths, sizes, hashes;
   untrusted, checked) - the only truth a node's files are compared with;
2. each node says what it holds and how much room it has (``model_node.survey``); a
   blob counts as held only once its hash is checked on that node;
3. disk first: a node short of room for what it lacks is a refusal naming node, need and
   free, before anything moves; so is a pair of nodes that cannot reach each other over
   the fabric, or a download node without the recipe's image;
4. one node (the one holding the most, else the head) runs huggingface_hub in the
   recipe's own image, each blob under a partial name resumed from its size (a Range
   request) by the next pull after an interruption;
5. copies fan out in doubling rounds, rsync over each source node's own ssh, a partial
   blob kept aside under no final name; each copy is hashed on its target against the
   Hub's hash; only then are the snapshot's links and ref written.
Ctrl+C (the task cancelled): the download container is removed and rsync ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping

from sparktui.config.models import Config, Node
from sparktui.engine.hub import endpoint
from sparktui.engine.progress import ProgressLog
from sparktui.engine.pull import model_node as on_node
from sparktui.engine.pull.model_hub import hub_snapshot, hub_token
from sparktui.engine.pull.transfer import PullKind, Source, Transfer, TransferSink
from sparktui.engine.pull.trust import untrusted_pairs
from sparktui.engine.remote.transport import Completed, NodeError, Transport
from sparktui.engine.results import ActionResult
from sparktui.plan.fit.probe import question_for
from sparktui.plan.hf import repo_dir
from sparktui.plan.model import LaunchPlan
from sparktui.plan.pull.model import (
    HubFile,
    ModelSaid,
    PullRefused,
    Snapshot,
    check_revision,
    complete,
    disk_refusal,
    download_node,
    fan_out,
    lacking,
    need_bytes,
    parse_present,
    shown,
)
from sparktui.said import Said, Size, said
from sparktui.scrub import scrub
from sparktui.steps import Step, StepState

POLL = 0.5
"""Seconds between two readings of a node's bytes (a Transfer at most twice a second)."""
TRANSFER_TIMEOUT = 7 * 24 * 3600.0
"""A download or copy has no time limit of its own (Ctrl+C ends it): a week."""


def _tail(text: str) -> str:
    return shown(scrub(text.strip().splitlines()[-1] if text.strip() else "?"))


class ModelPull:
    def __init__(self, config: Config, plan: LaunchPlan, transports: Mapping[str, Transport],
                 caches: Mapping[str, str], log: ProgressLog, transfers: TransferSink):
        self.config, self.plan, self.log, self.transfers = config, plan, log, transfers
        self.nodes: dict[str, Node] = {n.name: n for n in config.cluster(plan.cluster).nodes}
        self.order = [n.name for n in plan.nodes]
        self.transports = transports
        self.hub = {n: f"{caches[n].rstrip('/')}/hub" for n in self.order}
        self.roots: dict[str, str] = {}
        self.timeout = config.command_timeout_seconds

    def _fail(self, why: Said, node: str | None) -> ActionResult:
        self.log(Step.PULL_MODEL, node, StepState.FAILED, why)
        return ActionResult(ok=False, failed_node=node, failed_step=Step.PULL_MODEL.value,
                            detail=why, steps=self.log.events)

    async def run(self) -> ActionResult:
        try:
            return await self._run()
        except PullRefused as refused:
            return self._fail(refused.said, refused.node)

    async def _each(self, work: Callable[[str], Awaitable[object]], names: list[str]) -> list:
        """``work`` on every node at once; a node that does not answer is a refusal."""
        async def one(name: str) -> object:
            try:
                return await work(name)
            except NodeError as exc:
                raise PullRefused(said(ModelSaid.UNREACHABLE, node=name, detail=exc.said),
                                  name) from None
        return list(await asyncio.gather(*(one(n) for n in names)))

    async def _run(self) -> ActionResult:
        question = question_for(self.plan)
        if question.ref is None:
            raise PullRefused(said(ModelSaid.NO_REPO, model=shown(self.plan.model)))
        repo = question.ref.repo
        revision = check_revision(question.revision or "main")
        self.log(Step.PULL_MODEL, None, StepState.STARTED)
        snap = await hub_snapshot(repo, revision, self.timeout)
        self.roots = {n: repo_dir(self.hub[n].removesuffix("/hub"), repo) for n in self.order}
        blobs = snap.blobs
        surveys = dict(zip(self.order, await self._each(
            lambda n: on_node.survey(self.transports[n], self.roots[n]), self.order),
            strict=True))
        held = await self._each(lambda n: on_node.verify(
            self.transports[n], self.roots[n],
            [blobs[b] for b in sorted(complete(surveys[n].lines, blobs))], remove=False),
            self.order)
        verified = {n: good for n, (good, _) in zip(self.order, held, strict=True)}
        wants = {n: lacking(snap, verified[n]) for n in self.order}
        for n in self.order:  # disk first: every refusal said, before anything moves
            why = disk_refusal(n, self.roots[n], need_bytes(wants[n]), surveys[n].free, repo)
            if why is not None:
                raise PullRefused(why, n)
        needy = [n for n in self.order if wants[n]]
        source = download_node(self.order, verified, snap)
        rounds = fan_out(source, [n for n in needy if n != source])
        await self._trusted([pair for r in rounds for pair in r])
        if wants[source]:
            if not await on_node.has_image(self.transports[source], self.plan.image):
                raise PullRefused(said(ModelSaid.NO_IMAGE, image=shown(self.plan.image),
                                       node=source, repo=repo), source)
            await self._download(snap, source, wants[source])
        for n in self.order:
            if n not in needy:
                await self._link(snap, n)
                self.log(Step.PULL_MODEL, n, StepState.OK,
                         said(ModelSaid.ALREADY, repo=repo, commit=snap.commit, node=n))
        for pairs in rounds:
            failures = [r for r in await asyncio.gather(
                *(self._copy(snap, s, t, wants[t]) for s, t in pairs)) if r is not None]
            if failures:
                return failures[0]
        return ActionResult(ok=True, steps=self.log.events)

    async def _trusted(self, pairs: list[tuple[str, str]]) -> None:
        """Every source reaches its targets over the fabric, before anything moves: the
        image's check (``engine.pull.trust``), one refusal for both halves."""
        refusals = await untrusted_pairs(self.config, self.nodes, self.transports, pairs)
        if refusals:
            raise PullRefused(refusals[0], str(refusals[0].params["source"]))

    async def _watch(self, node: str, source: str, files: list[HubFile]) -> None:
        """A Transfer of ``node``'s bytes of ``files``, every ``POLL`` s until cancelled."""
        wanted = {f.blob: f for f in files}
        total = need_bytes(files)
        while True:
            with contextlib.suppress(NodeError):
                seen = await on_node.survey(self.transports[node], self.roots[node])
                done = sum(parse_present(seen.lines, wanted).values())
                self.transfers(Transfer(PullKind.MODEL, node, source, done, total))
            await asyncio.sleep(POLL)

    async def _watched(self, node: str, source: str, files: list[HubFile],
                       work: Awaitable[Completed], stop: Callable[[], Awaitable[None]]
                       ) -> Completed:
        watch = asyncio.ensure_future(self._watch(node, source, files))
        try:
            return await work
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(stop())
            raise
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch

    async def _download(self, snap: Snapshot, node: str, files: list[HubFile]) -> None:
        transport = self.transports[node]
        name = on_node.container_name()
        argv = on_node.download_argv(name, self.plan.image, self.hub[node], self.roots[node],
                                     snap, await on_node.user_ids(transport))
        self.log(Step.PULL_MODEL, node, StepState.STARTED, shown(Source.HUB.value))
        done = await self._watched(
            node, Source.HUB, files,
            on_node.download(transport, argv, endpoint(), hub_token(), files, TRANSFER_TIMEOUT),
            lambda: on_node.remove_container(transport, name))
        if not done.ok:
            raise PullRefused(said(ModelSaid.DOWNLOAD_FAILED, repo=snap.repo, node=node,
                                   detail=_tail(done.stderr)), node)
        await self._checked(snap, node, files)
        self.transfers(Transfer(PullKind.MODEL, node, Source.HUB, need_bytes(files),
                                need_bytes(files)))
        self.log(Step.PULL_MODEL, node, StepState.OK, said(
            ModelSaid.DOWNLOADED, repo=snap.repo, commit=snap.commit, node=node,
            size=Size(need_bytes(files))))

    async def _checked(self, snap: Snapshot, node: str, files: list[HubFile]) -> None:
        """``files`` hashed on ``node`` against the Hub (a bad one removed), then linked."""
        good, bad = await on_node.verify(self.transports[node], self.roots[node], files,
                                         remove=True)
        for f in files:
            if f.blob in bad:
                raise PullRefused(said(ModelSaid.BAD_FILE, file=shown(f.path), repo=snap.repo,
                                       node=node), node)
            if f.blob not in good:
                raise PullRefused(said(ModelSaid.MISSING_FILE, file=shown(f.path),
                                       repo=snap.repo, node=node), node)
        await self._link(snap, node)

    async def _link(self, snap: Snapshot, node: str) -> None:
        done = await on_node.link(self.transports[node], self.roots[node], snap)
        if not done.ok:
            raise PullRefused(said(ModelSaid.COPY_FAILED, repo=snap.repo, source=node,
                                   node=node, detail=_tail(done.stderr)), node)

    async def _copy(self, snap: Snapshot, source: str, target: str,
                    files: list[HubFile]) -> ActionResult | None:
        """``files`` from ``source`` to ``target``, hashed there; None when done."""
        try:
            made = await on_node.make_blobs(self.transports[target], self.roots[target])
            if not made.ok:
                raise PullRefused(said(ModelSaid.COPY_FAILED, repo=snap.repo, source=source,
                                       node=target, detail=_tail(made.stderr)), target)
            transport = self.transports[source]
            pid = on_node.pid_file(self.roots[source])
            argv = on_node.rsync_argv(self.config, self.nodes[target], self.roots[source],
                                      self.roots[target])
            self.log(Step.PULL_MODEL, target, StepState.STARTED, source)
            done = await self._watched(
                target, source, files,
                on_node.copy(transport, argv, pid, files, TRANSFER_TIMEOUT),
                lambda: on_node.stop_copy(transport, pid))
            if not done.ok:
                raise PullRefused(said(ModelSaid.COPY_FAILED, repo=snap.repo, source=source,
                                       node=target, detail=_tail(done.stderr)),
                                  target)
            await self._checked(snap, target, files)
        except PullRefused as failed:
            return self._fail(failed.said, failed.node)
        except NodeError as exc:
            return self._fail(said(ModelSaid.UNREACHABLE, node=target, detail=exc.said), target)
        self.transfers(Transfer(PullKind.MODEL, target, source, need_bytes(files),
                                need_bytes(files)))
        self.log(Step.PULL_MODEL, target, StepState.OK, said(
            ModelSaid.COPIED, repo=snap.repo, commit=snap.commit, source=source, node=target,
            size=Size(need_bytes(files))))
        return None


async def pull_model(config: Config, plan: LaunchPlan, transports: Mapping[str, Transport],
                     caches: Mapping[str, str], log: ProgressLog,
                     transfers: TransferSink) -> ActionResult:
    """``plan``'s model in every engine node's HF cache (``caches``: each node's HF
    folder, ``[mount_aliases] hf_cache``), or why not."""
    return await ModelPull(config, plan, transports, caches, log, transfers).run()
