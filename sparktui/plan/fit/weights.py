"""The weights' size from a snapshot's own files, without reading a weight.

``model.safetensors.index.json`` carries ``metadata.total_size`` (the bytes of every
tensor). Without an index, each ``*.safetensors`` file starts with an 8-byte
little-endian header length and a JSON header naming each tensor's dtype and shape
(https://github.com/huggingface/safetensors, "Format"): the sum of those is the size.
"""

from __future__ import annotations

import math
import re
from typing import Any

from sparktui import untrusted_json

SAFETENSORS_BYTES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4,
                     "F16": 2, "BF16": 2, "I16": 2, "U16": 2, "F8_E4M3": 1, "F8_E5M2": 1,
                     "F8_E8M0": 1, "I8": 1, "U8": 1, "BOOL": 1}
"""Bytes per element of each safetensors dtype (4-bit formats are stored packed in U8)."""

MAX_HEADER = 16 * 1024 * 1024
"""Header bytes read at most per file (a header is a few kB to a few MB)."""

_TOTAL_SIZE = re.compile(r'"total_size"\s*:\s*(\d+)')


class WeightsError(ValueError):
    """A header or index that does not parse: the file is named in the message."""


def header_length(first8: bytes) -> int:
    if len(first8) != 8:
        raise WeightsError("short header")
    return int.from_bytes(first8, "little")


def header_tensor_bytes(header: dict[str, Any]) -> int:
    """Bytes of every tensor a header describes (``data_offsets`` end - start when
    given, which also covers packed formats; dtype x shape otherwise)."""
    total = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            raise WeightsError(f"tensor {name!r} is not an object")
        offsets = info.get("data_offsets")
        if (isinstance(offsets, list) and len(offsets) == 2
                and all(isinstance(v, int) for v in offsets)):
            total += offsets[1] - offsets[0]
            continue
        width = SAFETENSORS_BYTES.get(str(info.get("dtype")))
        shape = info.get("shape")
        if width is None or not isinstance(shape, list):
            raise WeightsError(f"tensor {name!r}: dtype or shape missing")
        total += width * math.prod(int(d) for d in shape)
    return total


def headers_total(headers: dict[str, str]) -> int:
    """``headers``: file name -> its JSON header text."""
    total = 0
    for name, text in headers.items():
        try:
            parsed = untrusted_json.loads(text)
        except ValueError:
            raise WeightsError(f"{name}: header is not JSON") from None
        if not isinstance(parsed, dict):
            raise WeightsError(f"{name}: header is not an object")
        try:
            total += header_tensor_bytes(parsed)
        except WeightsError as exc:
            raise WeightsError(f"{name}: {exc}") from None
    return total


def index_total(text: str) -> int | None:
    """``metadata.total_size`` of an index (or the one line of it that holds it)."""
    found = _TOTAL_SIZE.search(text)
    return int(found.group(1)) if found else None
