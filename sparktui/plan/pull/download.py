"""What the head's registry pull will take on its disk, read before it starts.

A registry tells the compressed size of each layer (its manifest); docker keeps the
layers unpacked, and only the image's config, fetched by the pull itself, could tell
that size. So the need is the download times ``UNPACK_FACTOR`` (images of this kind
unpack to two to three times their download), and the refusal names both figures.

The manifest is asked by the head's own docker CLI (``docker manifest inspect -v``): its
credentials are the node's, as the daemon's pull uses them. The CLI does not know which
registries the daemon may reach over plain HTTP, so the daemon's own rule is applied
here to its ``RegistryConfig`` (``insecure``). Every answer is the node's and untrusted.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from sparktui import untrusted_json
from sparktui.plan.image_pin import MAX_ANSWER
from sparktui.plan.pull.image import MAX_IMAGE_BYTES

UNPACK_FACTOR = 2.5
MANIFEST_LIMIT = MAX_ANSWER * 64
"""The longest ``docker manifest inspect -v`` answer read (a list of many platforms)."""
MAX_LAYERS = 1000

ARCHITECTURES = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm", "ppc64le": "ppc64le",
                 "s390x": "s390x", "riscv64": "riscv64"}
"""``docker info``'s ``Architecture`` (the kernel's name) as an OCI platform names it."""

DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")


def registry_host(image: str) -> str:
    """The registry an image reference names (``docker.io`` when the first part is no
    host), as docker decides it: a first part with a dot or a colon, or ``localhost``."""
    first, slash, _rest = image.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first
    return "docker.io"


def insecure(registry_config: str, host: str) -> bool:
    """Whether the node's daemon pulls from ``host`` over plain HTTP: its index config
    says ``Secure: false``, or the host is an address (or ``localhost``) in one of its
    ``InsecureRegistryCIDRs``. A host name is not resolved here: it counts as secure
    unless named in the daemon's index configs. An answer that does not read: secure."""
    try:
        config = untrusted_json.loads(registry_config[:MAX_ANSWER * 4])
    except ValueError:
        return False
    if not isinstance(config, dict):
        return False
    indexes = config.get("IndexConfigs")
    if isinstance(indexes, dict) and isinstance(indexes.get(host), dict):
        return indexes[host].get("Secure") is False
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host.strip("[]")
    try:
        address = ipaddress.ip_address("127.0.0.1" if name == "localhost" else name)
    except ValueError:
        return False
    cidrs = config.get("InsecureRegistryCIDRs")
    for cidr in cidrs if isinstance(cidrs, list) else []:
        try:
            if isinstance(cidr, str) and address in ipaddress.ip_network(cidr, strict=False):
                return True
        except ValueError:
            continue
    return False


def platform(os_and_arch: str) -> tuple[str, str] | None:
    """``docker info``'s ``OSType Architecture`` line as an OCI (os, architecture)."""
    words = os_and_arch.split()
    if len(words) != 2:
        return None
    return words[0], ARCHITECTURES.get(words[1], words[1])


def download_size(answer: str, node_platform: tuple[str, str] | None) -> int | None:
    """The sum of the layers' sizes in ``docker manifest inspect -v``'s answer: one
    manifest, or a list (an index) of which the node's platform is taken. None when the
    answer does not read as that, or names no layer, or claims what is not believed."""
    if len(answer) > MANIFEST_LIMIT:
        return None
    try:
        found = untrusted_json.loads(answer)
    except ValueError:
        return None
    entries = found if isinstance(found, list) else [found]
    chosen = [e for e in entries if isinstance(e, dict) and _platform_of(e) == node_platform]
    if not chosen and isinstance(found, dict):
        chosen = [found]  # a single manifest (no index): the one pulled, whatever it is
    return _layers(chosen[0]) if chosen else None


def _platform_of(entry: dict[str, Any]) -> tuple[str, str] | None:
    descriptor = entry.get("Descriptor")
    where = descriptor.get("platform") if isinstance(descriptor, dict) else None
    if not isinstance(where, dict):
        return None
    os_name, arch = where.get("os"), where.get("architecture")
    return (os_name, arch) if isinstance(os_name, str) and isinstance(arch, str) else None


def _layers(entry: dict[str, Any]) -> int | None:
    manifest = entry.get("SchemaV2Manifest") or entry.get("OCIManifest")
    layers = manifest.get("layers") if isinstance(manifest, dict) else None
    if not isinstance(layers, list) or not layers or len(layers) > MAX_LAYERS:
        return None
    sizes = [layer.get("size") if isinstance(layer, dict) else None for layer in layers]
    if not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_IMAGE_BYTES
               for s in sizes):
        return None
    total = sum(s for s in sizes if isinstance(s, int))
    return total if 0 < total <= MAX_IMAGE_BYTES else None


def need(download: int) -> int:
    """The bytes the head's docker folder must have free for a download of this size."""
    return int(download * UNPACK_FACTOR)
