"""A few calls of the Docker Engine API over a daemon's unix socket (stdlib only).

The test bed's own housekeeping (import the test image, tag it, clean up between
tests) talks to each test daemon directly; sparktui itself always goes through the
real ``docker`` client on the node, over SSH.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import tarfile
import urllib.parse
from pathlib import Path
from typing import Any

API = "/v1.41"


class DockerApiError(RuntimeError):
    pass


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


class DockerApi:
    def __init__(self, socket_path: Path, timeout: float = 60.0) -> None:
        self.socket_path = str(socket_path)
        self.timeout = timeout

    def call(self, method: str, path: str, query: dict[str, Any] | None = None,
             body: bytes | None = None, content_type: str = "application/json",
             timeout: float | None = None) -> Any:
        url = API + path
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)
        conn = _UnixConnection(self.socket_path, timeout or self.timeout)
        try:
            headers = {"Content-Type": content_type} if body is not None else {}
            conn.request(method, url, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        if response.status >= 400:
            raise DockerApiError(f"{method} {path}: {response.status} {data[:300]!r}")
        text = data.decode("utf-8", "replace").strip()
        if not text:
            return None
        if response.getheader("Content-Type", "").startswith("application/json") and \
                "\n" not in text:
            item = json.loads(text)
            if isinstance(item, dict) and item.get("error"):
                raise DockerApiError(f"{method} {path}: {item['error']}")
            return item
        # Streamed progress (import, build): one JSON object a line; an "error" fails.
        for line in text.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and item.get("error"):
                raise DockerApiError(f"{method} {path}: {item['error']}")
        return text

    def ping(self) -> bool:
        try:
            self.call("GET", "/_ping", timeout=2)
        except (OSError, DockerApiError, http.client.HTTPException):
            return False
        return True

    # -- images ------------------------------------------------------------------
    def load(self, archive: bytes) -> None:
        """``docker load`` of an image archive (manifest.json, configs, layers)."""
        self.call("POST", "/images/load", {"quiet": "1"}, body=archive,
                  content_type="application/x-tar", timeout=300)

    def build(self, ref: str, dockerfile: str) -> None:
        """A config-only image on top of a local one (classic builder, no network)."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            data = dockerfile.encode()
            info = tarfile.TarInfo("Dockerfile")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        self.call("POST", "/build", {"t": ref, "version": "1", "rm": "1", "q": "1"},
                  body=buf.getvalue(), content_type="application/x-tar", timeout=120)

    def tag(self, source: str, ref: str) -> None:
        repo, tag = split_ref(ref)
        self.call("POST", f"/images/{urllib.parse.quote(source, safe='')}/tag",
                  {"repo": repo, "tag": tag})

    def untag(self, ref: str) -> None:
        self.call("DELETE", f"/images/{urllib.parse.quote(ref, safe='')}",
                  {"force": "1", "noprune": "1"})

    def image_id(self, ref: str) -> str | None:
        try:
            return self.call("GET", f"/images/{urllib.parse.quote(ref, safe='')}/json")["Id"]
        except DockerApiError:
            return None

    def tags(self) -> dict[str, str]:
        """Every tagged ref -> its image ID."""
        found = {}
        for image in self.call("GET", "/images/json") or []:
            for ref in image.get("RepoTags") or []:
                if ref != "<none>:<none>":
                    found[ref] = image["Id"]
        return found

    # -- containers ----------------------------------------------------------------
    def containers(self) -> list[dict[str, Any]]:
        return self.call("GET", "/containers/json", {"all": "1"}) or []

    def inspect(self, name: str) -> dict[str, Any]:
        return self.call("GET", f"/containers/{urllib.parse.quote(name, safe='')}/json")

    def remove(self, name: str) -> None:
        self.call("DELETE", f"/containers/{urllib.parse.quote(name, safe='')}",
                  {"force": "1", "v": "1"})


def split_ref(ref: str) -> tuple[str, str]:
    """``repo[:tag]`` -> (repo, tag), the tag ``latest`` when none is given."""
    last = ref.rsplit("/", 1)[-1]
    if ":" in last:
        repo, tag = ref.rsplit(":", 1)
        return repo, tag
    return ref, "latest"


def normalize_ref(ref: str) -> str:
    repo, tag = split_ref(ref)
    return f"{repo}:{tag}"
