"""Reading the JSON object a model was asked for out of what it actually wrote."""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``, or None.

    Models wrap the object they were asked for in code fences or prose; this
    scans each ``{`` in turn and returns the first one that decodes to an object.
    """
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
