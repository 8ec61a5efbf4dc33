"""JSON that a node (or a file it wrote) sent: parsed so that no text can crash a reader.

``json.loads`` raises ``RecursionError``, not ``ValueError``, on arrays or objects nested
a few thousand deep (``[[[[…``): a node's listing of that shape was a traceback in
``stop``. Every reader of node text catches ``ValueError`` for text that is not JSON, so
this raises that for both.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, **options: Any) -> Any:
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None
