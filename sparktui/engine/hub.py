"""The Hugging Face Hub asked for a model's config.json and weights' size, when the model is
in no node's HF cache (``sparktui.engine.fit``): the fit before a download.

Asked from the machine sparktui runs on, through ``huggingface_hub``'s own HTTP client,
URLs and headers, at ``HF_ENDPOINT`` (default https://huggingface.co), with ``HF_TOKEN``
(or the token ``hf auth login`` stored) and the recipe's ``--revision``; never when
``HF_HUB_OFFLINE`` is set. The environment is read at each call, not when
``huggingface_hub`` was imported (it freezes both then). Three requests at most:

1. the model info at the revision (``/api/models/{repo}/revision/{rev}``): its commit and
   its file names;
2. ``config.json`` at that commit;
3. ``model.safetensors.index.json`` when the repo has one (its ``metadata.total_size``),
   else the ``*.safetensors`` files' sizes (``/api/models/{repo}/paths-info/{commit}``).

Why not ``HfApi.model_info`` and ``hf_hub_download``: they read (or write to disk)
whatever the server sends. Each body here is read from the stream up to its limit
(``sparktui.plan.fit.hub``), asked for as it is (no compression to expand), and each
request has the fit's timeout. The token is registered with ``sparktui.scrub`` before
the first request, so no output, error or log line shows it.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from sparktui.engine.deadline import within
from sparktui.plan.fit.hub import (
    INDEX_LIMIT,
    LISTING_LIMIT,
    SIZES_LIMIT,
    HubError,
    HubFigures,
    HubPart,
    HubWhy,
    figures,
    in_folder,
    limit_said,
    parse_index,
    parse_listing,
    parse_sizes,
    shown,
)
from sparktui.plan.fit.probe import MAX_CONFIG, Question
from sparktui.plan.model import HfRef
from sparktui.said import Seconds, said
from sparktui.scrub import redact_url, register, scrub, scrub_logging

DEFAULT_ENDPOINT = "https://huggingface.co"
REQUESTS = 3
"""Requests in one conversation: the whole is bounded by that many timeouts."""


def offline() -> bool:
    """``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) as huggingface_hub reads it."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.upper() in {"1", "ON", "YES", "TRUE"}


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def _token() -> str | None:
    from huggingface_hub import get_token  # HF_TOKEN first, then the stored login

    token = get_token()
    if token:
        register(token)
        scrub_logging()
    return token or None


class _Conversation:
    """One model's questions to one Hub, through one client of huggingface_hub's."""

    def __init__(self, client: Any, url: str, ref: HfRef, question: Question,
                 timeout: float):
        from huggingface_hub.utils import build_hf_headers

        self.client, self.url, self.timeout = client, url, timeout
        self.shown = visible_url(url)
        self.ref, self.question = ref, question
        self.revision = question.revision or "main"
        self.token = _token()
        self.headers = build_hf_headers(token=self.token or False, library_name="sparktui")
        self.headers["Accept-Encoding"] = "identity"

    async def figures(self) -> HubFigures:
        from huggingface_hub import hf_hub_url

        api = f"{self.url}/api/models/{self.ref.repo}"
        listing = parse_listing(await self._read(
            "GET", f"{api}/revision/{quote(self.revision, safe='')}", LISTING_LIMIT,
            HubPart.MODEL_INFO), self.revision)
        folder = (self.ref.subfolder or "").strip("/")
        config, index = (f"{folder}/{name}" if folder else name
                         for name in ("config.json", "model.safetensors.index.json"))
        if config not in listing.files:
            raise HubError(said(HubWhy.NO_CONFIG, repo=self.ref.repo,
                                revision=shown(self.revision), file=shown(config),
                                endpoint=self.shown))

        def url(name: str) -> str:
            return str(hf_hub_url(self.ref.repo, name, revision=listing.commit,
                                  endpoint=self.url))

        config_body = await self._read("GET", url(config), MAX_CONFIG, HubPart.CONFIG)
        weights: tuple[int, str] | None = None
        if index in listing.files:
            weights = parse_index(await self._read(
                "GET", url(index), INDEX_LIMIT, HubPart.INDEX)), "index"
        elif names := in_folder(listing.files, folder):
            body = await self._read("POST", f"{api}/paths-info/{quote(listing.commit, safe='')}",
                                    SIZES_LIMIT, HubPart.SIZES,
                                    data={"paths": names, "expand": "false"})
            weights = parse_sizes(body, names), "sizes"
        return figures(config_body, weights, self.question,
                       (self.shown, self.ref.repo, self.revision, listing.commit))

    async def _read(self, method: str, url: str, limit: int, what: HubPart,
                    **options: Any) -> bytes:
        """The body, at most ``limit`` bytes, as the server sent it."""
        async with self.client.stream(method, url, headers=self.headers, timeout=self.timeout,
                                      **options) as response:
            if response.status_code >= 400:
                raise self._refused(response, what)
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("identity", ""):
                raise HubError(said(HubWhy.ENCODED, what=said(what), encoding=shown(encoding)))
            declared = response.headers.get("content-length", "")
            if declared.isdecimal() and int(declared) > limit:
                raise HubError(limit_said(what, limit))
            body = bytearray()
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > limit:
                    raise HubError(limit_said(what, limit))
            return bytes(body)

    def _refused(self, response: Any, what: HubPart) -> HubError:
        """huggingface_hub's reading of an error answer (``X-Error-Code``; a 401 of the
        repo API is "not found" there too), in sparktui's words."""
        from huggingface_hub.errors import (
            GatedRepoError,
            RemoteEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
        from huggingface_hub.utils import hf_raise_for_status

        where = {"repo": self.ref.repo, "endpoint": self.shown}
        try:
            hf_raise_for_status(response)
        except GatedRepoError:
            return HubError(said(HubWhy.GATED if self.token else HubWhy.GATED_NO_TOKEN, **where),
                            asked=False)
        except RevisionNotFoundError:
            return HubError(said(HubWhy.NO_REVISION, revision=shown(self.revision), **where),
                            asked=False)
        except RepositoryNotFoundError:
            if self.token and response.status_code in (401, 403) \
                    and response.headers.get("x-error-code") != "RepoNotFound":
                return HubError(said(HubWhy.TOKEN_REFUSED, endpoint=self.shown,
                                     status=response.status_code), asked=False)
            return HubError(said(HubWhy.NOT_FOUND if self.token else HubWhy.NOT_FOUND_NO_TOKEN,
                                 **where), asked=False)
        except RemoteEntryNotFoundError:
            return HubError(said(HubWhy.NO_CONFIG, repo=self.ref.repo, file=said(what),
                                 revision=shown(self.revision), endpoint=self.shown),
                            asked=False)
        except Exception:  # any other refusal: its status says it
            pass
        if self.token and response.status_code == 401:
            return HubError(said(HubWhy.TOKEN_REFUSED, endpoint=self.shown, status=401),
                            asked=False)
        return HubError(said(HubWhy.HTTP, endpoint=self.shown, status=response.status_code,
                             what=said(what)), asked=False)


def visible_url(url: str) -> str:
    """An endpoint as a sentence shows it: credentials in it as stars, escapes written."""
    return shown(redact_url(url))


async def hub_figures(question: Question, timeout: float) -> HubFigures | HubError:
    """What the Hub's files say of ``question``'s model (a repo id: ``question.ref``), or
    why they say nothing."""
    url, ref = endpoint(), question.ref
    if ref is None:
        raise ValueError("no repo to ask the Hub for")  # refit asks for repos only
    if offline():
        return HubError(said(HubWhy.OFFLINE), asked=False)
    if not url.startswith(("http://", "https://")):
        return HubError(said(HubWhy.BAD_ENDPOINT, endpoint=visible_url(url)), asked=False)
    try:  # a dependency, but an image built by hand (the on-node supervisor's) may lack it
        import httpx2
        from huggingface_hub.errors import OfflineModeIsEnabled
        from huggingface_hub.utils import get_async_session
    except ImportError as exc:
        return HubError(said(HubWhy.NO_CLIENT, detail=shown(str(exc))), asked=False)

    try:
        async with get_async_session() as client:
            talk = _Conversation(client, url, ref, question, timeout)
            return await within(talk.figures(), REQUESTS * timeout + 1)
    except HubError as exc:
        return exc
    except OfflineModeIsEnabled:
        return HubError(said(HubWhy.OFFLINE), asked=False)
    except (TimeoutError, httpx2.TimeoutException):
        return HubError(said(HubWhy.NO_ANSWER, endpoint=visible_url(url),
                             seconds=Seconds(timeout)), asked=False)
    except httpx2.HTTPError as exc:
        detail = shown(scrub(redact_url(str(exc) or type(exc).__name__)))
        return HubError(said(HubWhy.UNREACHABLE, endpoint=visible_url(url), detail=detail),
                        asked=False)
