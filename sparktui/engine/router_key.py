"""The router's keys: the one its clients send, and the one its control routes want.

The client key (SMG's ``--api-key``) is ``[clusters.router] api_key`` when the config sets
it, else one sparktui makes once per cluster and keeps, 0600, in the operator's state
folder (``$XDG_STATE_HOME/sparktui/router/<cluster>.key``). The control key (SMG's
``--control-plane-api-keys``, its ``/workers`` routes) is new at every start of the router
and kept nowhere but on the router's node: sparktui never calls those routes (it makes
the router again), so nobody needs it, and the heads behind the router (SMG sends them
the client key) never learn it.

Both reach the router's node on stdin into a 0600 file (``sparktui.plan.router.KEY_DIR``),
never in a command line; both are registered with ``sparktui.scrub`` before any use.
"""

from __future__ import annotations

import os
import secrets
import shlex
import stat
from pathlib import Path

from sparktui.config import rules
from sparktui.config.base import Secret
from sparktui.config.models import Cluster
from sparktui.engine.remote.transport import Transport
from sparktui.i18n import N_
from sparktui.plan.router import KEY_FILE, RouterPlan
from sparktui.said import Code, Said, said
from sparktui.scrub import register


class KeySaid(Code):
    UNREADABLE = N_("the router's key {path} cannot be read: {error}")
    NOT_A_FILE = N_("the router's key {path} is not a file")
    OPEN_TO_OTHERS = N_("the router's key {path} can be read by others: chmod 600 it, or "
                        "remove it for a new one")
    NO_KEY = N_("the router's key {path} holds no key: remove it for a new one")
    NOT_PLACED = N_("the router's keys were not written on its node: {error}")


class RouterKeyError(RuntimeError):
    """The kept key cannot be used (a link, readable by others, not a key): said, never
    replaced, since the router's clients may hold it."""

    def __init__(self, what: Said):
        self.said = what
        super().__init__(str(what))


def state_folder(env: dict[str, str] | None = None) -> Path:
    env = os.environ.copy() if env is None else env
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sparktui" / "router"


def key_path(cluster: str, env: dict[str, str] | None = None) -> Path:
    return state_folder(env) / f"{cluster}.key"


def client_key(cluster: Cluster) -> Secret:
    """The key the router's clients send, made and kept the first time it is needed.
    RouterKeyError: the kept file is unusable."""
    return kept_client_key(cluster) or _make(key_path(cluster.name))


def kept_client_key(cluster: Cluster) -> Secret | None:
    """The key set or kept; None when there is none yet (a health check makes none)."""
    router = cluster.router
    if router is not None and router.api_key is not None:
        return router.api_key
    return _read(key_path(cluster.name))


def _read(path: Path) -> Secret | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RouterKeyError(said(KeySaid.UNREADABLE, path=str(path),
                                  error=exc.strerror or str(exc))) from None
    with os.fdopen(fd, "rb") as kept:
        info = os.fstat(kept.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise RouterKeyError(said(KeySaid.NOT_A_FILE, path=str(path)))
        if info.st_mode & 0o077:
            raise RouterKeyError(said(KeySaid.OPEN_TO_OTHERS, path=str(path)))
        text = kept.read(4096).decode("ascii", "replace").strip()
    if rules.TOKEN.fullmatch(text) is None or len(text) < rules.TOKEN_MIN_LENGTH:
        raise RouterKeyError(said(KeySaid.NO_KEY, path=str(path)))
    return Secret(text)


def _make(path: Path) -> Secret:
    """A new key, written whole to a 0600 file of its own, then linked to ``path``: two
    sparktui making it at once both end with the one that was linked first."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Secret(secrets.token_urlsafe(32))
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(key.get_secret_value() + "\n")
        try:
            os.link(temp, path)
        except FileExistsError:
            return _read(path) or key
    finally:
        temp.unlink(missing_ok=True)
    return key


def control_key() -> str:
    key = secrets.token_urlsafe(32)
    register(key)
    return key


async def place_keys(t: Transport, plan: RouterPlan, client: Secret, control: str,
                     timeout: float) -> None:
    """The router's ``keys`` file on its node, 0600 in a 0700 folder, from stdin."""
    folder, final = shlex.quote(plan.key_dir), shlex.quote(plan.key_path)
    temp = shlex.quote(f"{plan.key_dir}/.{KEY_FILE}.new")
    script = (f"umask 077 && mkdir -p -- {folder} && chmod 700 -- {folder} && "
              f"cat > {temp} && mv -f -- {temp} {final}")
    done = await t.run(script, stdin=f"{client.get_secret_value()}\n{control}\n",
                       timeout=timeout)
    if not done.ok:
        raise RouterKeyError(said(KeySaid.NOT_PLACED, error=(
            done.stderr or done.stdout).strip()[-300:] or f"exit {done.exit_code}"))
