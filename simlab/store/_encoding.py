"""A record as its ``sessions.jsonl`` line, whatever text its session produced.

A target can reply with text that is no valid Unicode: a lone surrogate
(``"sorry \\udcff"``, from a bad decode on its side) cannot be written as UTF-8,
and JSON readers (pydantic's included) refuse it even as a ``\\udcff`` escape.
Such text is stored escaped: each lone surrogate becomes the six characters
``\\udcff``, and the record says so in ``meta["encoding"]``, so the run goes on,
resumes and reads back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticSerializationError

from simlab.store._record import SessionRecord

ENCODING_META = "encoding"
"""A record's ``meta`` entry when some of its text was stored escaped:
``{"escaped": <lone surrogates replaced>, "how": ...}``; absent otherwise."""

_HOW = "lone surrogates (text that is no valid Unicode) stored as \\uXXXX text"


def record_line(record: SessionRecord) -> bytes:
    """``record`` as its ``sessions.jsonl`` line (UTF-8 JSON, no newline); text that
    cannot be encoded is escaped (see ``encodable_record``).

    Raises:
        PydanticSerializationError: The record cannot be written for another reason
            (a value nested past the serializer's depth).
    """
    return encodable_record(record)[1]


def encodable_record(record: SessionRecord) -> tuple[SessionRecord, bytes]:
    """``record`` and its line; when some of its text cannot be encoded, a copy with
    that text escaped and ``meta["encoding"]`` saying how much, and the copy's line.

    Raises:
        PydanticSerializationError: The record cannot be written for another reason.
    """
    try:
        return record, _json(record)
    except PydanticSerializationError as e:
        if "surrogates not allowed" not in str(e):
            raise
    data, escaped = _escaped(record.model_dump())
    meta = data.get("meta")
    data["meta"] = {
        **(meta if isinstance(meta, dict) else {}),
        ENCODING_META: {"escaped": escaped, "how": _HOW},
    }
    fixed = SessionRecord.model_validate(data)
    return fixed, _json(fixed)


def _json(record: SessionRecord) -> bytes:
    return record.model_dump_json().encode("utf-8")


def escape_text(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\uXXXX`` (the rest as it is)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(data: Any) -> tuple[Any, int]:
    """A copy of ``data`` (mappings as dicts, lists and tuples as lists) with every lone
    surrogate escaped, keys included, and how many strings were changed. Walked with a
    stack, not recursion."""
    changed = 0

    def fix(item: Any) -> Any:
        nonlocal changed
        if isinstance(item, str) and not _encodable(item):
            changed += 1
            return escape_text(item)
        return item

    def open_(item: Any) -> tuple[Any, Any]:
        """A new, empty container for ``item``, and its entries still to copy."""
        if isinstance(item, Mapping):
            return {}, iter(list(item.items()))
        return [], iter(list(enumerate(item)))

    if not isinstance(data, Mapping | list | tuple):
        return fix(data), changed
    root, entries = open_(data)
    stack: list[tuple[Any, Any]] = [(root, entries)]
    while stack:
        built, entries = stack[-1]
        for key, item in entries:
            if isinstance(item, Mapping | list | tuple):
                child, child_entries = open_(item)
                _put(built, fix(key), child)
                stack.append((child, child_entries))
                break
            _put(built, fix(key), fix(item))
        else:
            stack.pop()
    return root, changed


def _put(container: dict[Any, Any] | list[Any], key: Any, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
    else:
        container.append(value)
