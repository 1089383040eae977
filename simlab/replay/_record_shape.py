"""What a decoded log record must be before anything reads it: shallow enough, valid Unicode.

JSON allows what simlab cannot keep: arrays nested thousands deep (every
recursive reader, the writer and the reports included, would overflow) and
``"\\ud800"`` escapes that decode to lone surrogates (no UTF-8 file can hold
them). Such a record is skipped with the reason and where in it the problem is.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 100
"""Arrays and objects nested in one another in one record (logged messages need ~10)."""


def shape_problem(data: Any) -> str | None:
    """Why ``data`` cannot be imported as it is (too deep, a lone surrogate), or None."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, str):
            if _has_surrogate(value):
                return _surrogate(where or "the record")
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                return (
                    f"nested more than {MAX_DEPTH} levels deep at {where or 'the top'}; "
                    "a logged conversation needs far fewer"
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and _has_surrogate(key):
                    return _surrogate(f"a key in {where or 'the record'}")
                stack.append((item, f"{where}.{key}" if where else str(key), depth + 1))
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _surrogate(where: str) -> str:
    return (
        f"{where} holds a lone surrogate (an escape such as \\ud800 without its pair), "
        "which is not Unicode text; fix the encoding of the log where it was written"
    )


def decode_embedded(text: str) -> Any:
    """JSON held as text inside a record (tool arguments, results, OTLP attributes).

    Raises:
        json.JSONDecodeError: ``text`` is not JSON.
        ValueError: It is JSON simlab cannot keep: too deep, a lone surrogate,
            an integer of more than 4,300 digits (the message says which).
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # Python's limit on integer digits
        raise ValueError("holds a number of more than 4,300 digits") from None
    problem = shape_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value
