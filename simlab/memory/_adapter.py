"""Accept sync or async stores, and check what an untrusted store hands back."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta
from typing import Any

from simlab.memory._protocol import MemoryItem, MemoryStore

_METHODS = ("save", "retrieve", "delete")
_ITEM_FIELDS = ("key", "topic", "value", "saved_at", "expires_at")


class MemoryStoreError(Exception):
    """A store does not implement the protocol or returned something malformed."""


async def _settle(result: Any) -> Any:
    """Await the result of a method only if it was async."""
    if inspect.isawaitable(result):
        return await result
    return result


def _to_item(raw: Any) -> MemoryItem:
    """A ``MemoryItem`` from what a store returned (duck typing for its own item class)."""
    if isinstance(raw, MemoryItem):
        return raw
    missing = [f for f in _ITEM_FIELDS if not hasattr(raw, f)]
    if missing:
        raise MemoryStoreError(
            f"retrieve() returned a {type(raw).__name__} without {', '.join(missing)}; "
            "return simlab.memory.MemoryItem objects"
        )
    return MemoryItem(
        key=str(raw.key),
        topic=str(raw.topic),
        value=str(raw.value),
        saved_at=raw.saved_at,
        expires_at=raw.expires_at,
    )


class _AdaptedStore:
    """Wraps a store whose methods may be sync or async, method by method."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def save(
        self,
        user_id: str,
        topic: str,
        key: str,
        value: str,
        at: datetime,
        ttl: timedelta | None = None,
    ) -> None:
        # Called inline rather than in a thread: the suite runs one step at a
        # time, so there is nothing a blocking store could hold up.
        await _settle(self._inner.save(user_id, topic, key, value, at, ttl))

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        raw = await _settle(self._inner.retrieve(user_id, topic, at))
        if raw is None or isinstance(raw, str | bytes | dict):
            raise MemoryStoreError(
                f"retrieve() returned {type(raw).__name__}; return a list of MemoryItem"
            )
        try:
            return [_to_item(r) for r in raw]
        except TypeError:
            raise MemoryStoreError(
                f"retrieve() returned a non-iterable {type(raw).__name__}"
            ) from None

    async def delete(
        self, user_id: str, *, key: str | None = None, topic: str | None = None
    ) -> None:
        await _settle(self._inner.delete(user_id, key=key, topic=topic))


def as_memory_store(obj: object) -> MemoryStore:
    """Adapt ``obj`` (sync or async methods) to the async ``MemoryStore`` protocol.

    Raises:
        MemoryStoreError: ``obj`` lacks ``save``, ``retrieve`` or ``delete``.
    """
    if isinstance(obj, _AdaptedStore):
        return obj
    missing = [m for m in _METHODS if not callable(getattr(obj, m, None))]
    if missing:
        raise MemoryStoreError(
            f"a {type(obj).__name__} is not a memory store: it has no "
            f"{', '.join(m + '()' for m in missing)}; see simlab.memory.MemoryStore"
        )
    return _AdaptedStore(obj)
