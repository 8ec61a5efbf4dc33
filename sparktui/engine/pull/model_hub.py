"""What a model's snapshot is, asked of the Hub from the machine sparktui runs on: the
commit a revision points to and every file's path, size and hash. Metadata only (two
small requests), read with ``huggingface_hub``'s own HTTP client at ``HF_ENDPOINT`` with
``HF_TOKEN`` (or the stored login), as the fit before download asks
(``sparktui.engine.hub``); each body read to its limit, everything checked as untrusted
in ``sparktui.plan.pull.model``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from sparktui.engine.deadline import within
from sparktui.engine.hub import endpoint, offline, visible_url
from sparktui.plan.fit.hub import HubPart, HubWhy
from sparktui.plan.pull.model import PullRefused, Snapshot, parse_files, parse_listing
from sparktui.said import Said, Seconds, Size, said
from sparktui.scrub import redact_url, register, scrub, scrub_logging

LIMIT = 8 << 20
"""The model info or paths-info of a repo of ten thousand files is under 4 MB."""


def hub_token() -> str | None:
    """``HF_TOKEN``, else the stored login; registered with the scrubber before use."""
    from huggingface_hub import get_token

    token = get_token()
    if token:
        register(token)
        scrub_logging()
    return token or None


async def _read(client: Any, method: str, url: str, headers: dict[str, str],
                timeout: float, what: Said, **options: Any) -> bytes:
    async with client.stream(method, url, headers=headers, timeout=timeout,
                             **options) as response:
        if response.status_code >= 400:
            raise PullRefused(said(HubWhy.HTTP, endpoint=visible_url(endpoint()),
                                   status=response.status_code, what=what))
        body = bytearray()
        async for chunk in response.aiter_raw():
            body += chunk
            if len(body) > LIMIT:
                raise PullRefused(said(HubWhy.TOO_LARGE, what=what, limit=Size(LIMIT)))
        return bytes(body)


async def hub_snapshot(repo: str, revision: str, timeout: float) -> Snapshot:
    """The snapshot of ``repo`` at ``revision``, or ``PullRefused`` saying why not."""
    url = endpoint()
    if offline():
        raise PullRefused(said(HubWhy.OFFLINE))
    if not url.startswith(("http://", "https://")):
        raise PullRefused(said(HubWhy.BAD_ENDPOINT, endpoint=visible_url(url)))
    import httpx2
    from huggingface_hub.utils import build_hf_headers, get_async_session

    token = hub_token()
    headers = build_hf_headers(token=token or False, library_name="sparktui")
    headers["Accept-Encoding"] = "identity"
    api = f"{url}/api/models/{repo}"

    async def ask() -> Snapshot:
        async with get_async_session() as client:
            body = await _read(client, "GET", f"{api}/revision/{quote(revision, safe='')}",
                               headers, timeout, said(HubPart.MODEL_INFO))
            commit, names = parse_listing(body, repo, revision)
            body = await _read(client, "POST", f"{api}/paths-info/{commit}", headers,
                               timeout, said(HubPart.SIZES),
                               data={"paths": names, "expand": "false"})
            return parse_files(body, repo, revision, commit, names)

    try:
        return await within(ask(), 2 * timeout + 1)
    except (TimeoutError, httpx2.TimeoutException):
        raise PullRefused(said(HubWhy.NO_ANSWER, endpoint=visible_url(url),
                               seconds=Seconds(timeout))) from None
    except httpx2.HTTPError as exc:
        detail = scrub(redact_url(str(exc) or type(exc).__name__))
        raise PullRefused(said(HubWhy.UNREACHABLE, endpoint=visible_url(url),
                               detail=detail)) from None
