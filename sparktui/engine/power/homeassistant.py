"""Home Assistant's REST API: switch an entity and read back its state.

A service call answers 200 (with ``[]`` when nothing changed, even for an unknown
entity), so the only proof that a switch happened is the state read afterwards:
``set_and_confirm`` calls the service, then polls ``/api/states/<entity>``.

The token never leaves this module in readable form: it is held as a ``Secret``,
sent only in the ``Authorization`` header, and every text that could carry it back
(an error body, an exception) is scrubbed before it is raised.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING, Any

from sparktui.engine.power.codes import HomeAssistantSaid as HA
from sparktui.said import Layout, Said, joined, said
from sparktui.scrub import redact_url, register, scrub, scrub_logging

if TYPE_CHECKING:  # httpx is imported with the first client: the dashboard may never need it
    import httpx

    from sparktui.config.base import Secret
    from sparktui.config.models import HomeAssistant as HomeAssistantConfig

CONFIRM_POLL_SECONDS = 0.5
"""How often ``set_and_confirm`` reads the state back."""
_ENTITY = re.compile(r"^([a-z0-9_]+)\.[a-z0-9_]+$")


class HomeAssistantError(Exception):
    """Something Home Assistant did not do; the text is safe to show: no token in any form,
    no URL userinfo (``admin:pw@``) and no secret-named query value (``?api_password=``)."""

    def __init__(self, what: Said, entity: str | None = None):
        self.entity = entity
        self.said = what.redacted(lambda text: scrub(redact_url(text)))
        super().__init__(scrub(redact_url(str(self.said))))


def domain_of(entity: str) -> str:
    """``switch.spark1`` -> ``switch``: a service lives in the entity's own domain."""
    match = _ENTITY.match(entity)
    if match is None:
        raise HomeAssistantError(said(HA.NOT_AN_ENTITY, entity=entity), entity)
    return match.group(1)


class HomeAssistantClient:
    """``async with HomeAssistantClient(config.home_assistant) as ha: await ha.turn_on(e)``."""

    def __init__(self, config: HomeAssistantConfig, *,
                 transport: httpx.AsyncBaseTransport | None = None):
        import httpx

        found: set[str] = set()
        self._url = config.url.rstrip("/")
        self.url = redact_url(self._url, found)
        """The URL as it is shown: credentials in it as stars."""
        self._secrets = {config.token.get_secret_value(), *found}
        for secret in found:  # httpx logs request URLs: the log filter hides these too
            register(secret)
        self.timeout = config.timeout_seconds
        self.confirm_timeout = config.confirm_timeout_seconds
        self._token: Secret = config.token
        scrub_logging()  # httpx and its transports log requests and errors
        # trust_env=False: Home Assistant is on the site's network, never behind the
        # operator's HTTP(S)_PROXY; and no .netrc credential is ever mixed in.
        try:
            self._http = httpx.AsyncClient(base_url=self._url, timeout=self.timeout,
                                           transport=transport, trust_env=False,
                                           follow_redirects=False)
        except httpx.InvalidURL as exc:
            raise HomeAssistantError(said(HA.BAD_URL, url=repr(self.url),
                                          why=self._scrub(str(exc)))) from None

    def __repr__(self) -> str:
        return f"HomeAssistantClient(url={self.url!r}, token=**********)"

    async def __aenter__(self) -> HomeAssistantClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    # -- requests --------------------------------------------------------------------
    def _scrub(self, text: str) -> str:
        """Every form of the token and of the URL's credentials (raw, repr'd, escaped,
        URL-encoded, HTML, base64), not just the raw one; and any URL's userinfo."""
        return scrub(redact_url(text), self._secrets)

    async def _request(self, method: str, path: str, *, entity: str | None = None,
                       body: dict[str, Any] | None = None) -> Any:
        import httpx

        headers = {"Authorization": f"Bearer {self._token.get_secret_value()}",
                   "Accept": "application/json"}
        try:
            answer = await self._http.request(method, path, json=body, headers=headers)
        except httpx.TimeoutException:
            raise HomeAssistantError(said(HA.NO_ANSWER_WITHIN, url=self.url,
                                          seconds=self.timeout), entity) from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            reason = self._scrub(str(exc)) or type(exc).__name__
            raise HomeAssistantError(said(HA.UNREACHABLE, url=self.url, why=reason),
                                     entity) from None
        except UnicodeError:  # the config refuses such a token; a caller may not have
            raise HomeAssistantError(said(HA.BAD_TOKEN_VALUE), entity) from None
        if answer.status_code in (401, 403):
            raise HomeAssistantError(said(HA.TOKEN_REFUSED), entity)
        if answer.status_code == 404 and entity is not None:
            raise HomeAssistantError(said(HA.UNKNOWN_ENTITY, entity=entity), entity)
        if answer.status_code >= 400:
            text = self._scrub(answer.text.strip())[:200]
            answered = said(HA.ANSWERED, status=answer.status_code, request=f"{method} {path}")
            raise HomeAssistantError(joined(Layout.COLON, answered, text) if text else answered,
                                     entity)
        try:
            return answer.json()
        except ValueError:
            raise HomeAssistantError(said(HA.NOT_JSON, path=path), entity) from None

    async def check(self) -> None:
        """The API answers and accepts the token (``GET /api/``)."""
        await self._request("GET", "/api/")

    async def state(self, entity: str) -> str:
        domain_of(entity)
        data = await self._request("GET", f"/api/states/{entity}", entity=entity)
        if not isinstance(data, dict) or "state" not in data:
            raise HomeAssistantError(said(HA.NO_STATE, entity=entity), entity)
        return str(data["state"])

    async def _service(self, entity: str, service: str) -> None:
        domain = domain_of(entity)
        await self._request("POST", f"/api/services/{domain}/{service}", entity=entity,
                            body={"entity_id": entity})

    async def turn_on(self, entity: str) -> None:
        await self._service(entity, "turn_on")

    async def turn_off(self, entity: str) -> None:
        await self._service(entity, "turn_off")

    async def set_and_confirm(self, entity: str, on: bool,
                              timeout: float | None = None) -> str:
        """Switch ``entity`` and wait until its state reads "on"/"off"; returns it."""
        target = "on" if on else "off"
        limit = self.confirm_timeout if timeout is None else timeout
        await (self.turn_on if on else self.turn_off)(entity)
        deadline = time.monotonic() + limit
        while True:
            state = await self.state(entity)
            if state == target:
                return state
            if time.monotonic() >= deadline:
                raise HomeAssistantError(said(HA.STILL_READS, entity=entity, state=state,
                                              seconds=limit, action=f"turn_{target}"), entity)
            await asyncio.sleep(CONFIRM_POLL_SECONDS)


__all__ = ["HomeAssistantClient", "HomeAssistantError", "domain_of"]
