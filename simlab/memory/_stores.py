"""Two reference stores: a naive append-only log and a correct keyed store.

They exist to show what the aspect suite finds, not to be used in production.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from simlab.memory._protocol import MemoryItem


def _one_of(key: str | None, topic: str | None) -> None:
    if (key is None) == (topic is None):
        raise ValueError("delete() needs exactly one of key= or topic=")


def _expiry(at: datetime, ttl: timedelta | None) -> datetime | None:
    if ttl is None:
        return None
    if ttl <= timedelta(0):
        raise ValueError(f"ttl must be positive, got {ttl}")
    return at + ttl


@dataclass(frozen=True, slots=True)
class _Row:
    user_id: str
    item: MemoryItem


class AppendOnlyStore:
    """The store a first draft usually is: every statement appends a row.

    Deliberately naive, with sync methods (``as_memory_store`` adapts them):

    * ``save`` appends, so a corrected fact lives on next to its correction;
    * ``retrieve`` filters by user, topic and expiry and returns rows oldest first;
    * ``delete(key=...)`` removes the first matching row only, because its author
      believed a key has one row; ``delete(topic=...)`` removes every row of the topic.
    """

    def __init__(self) -> None:
        self._rows: list[_Row] = []

    def save(
        self,
        user_id: str,
        topic: str,
        key: str,
        value: str,
        at: datetime,
        ttl: timedelta | None = None,
    ) -> None:
        """Append the fact."""
        self._rows.append(_Row(user_id, MemoryItem(key, topic, value, at, _expiry(at, ttl))))

    def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        """Every live row of the user's topic, in the order saved."""
        return [
            r.item
            for r in self._rows
            if r.user_id == user_id and r.item.topic == topic and r.item.live_at(at)
        ]

    def delete(self, user_id: str, *, key: str | None = None, topic: str | None = None) -> None:
        """Remove the first row of ``key``, or all rows of ``topic``."""
        _one_of(key, topic)
        if topic is not None:
            self._rows = [
                r for r in self._rows if not (r.user_id == user_id and r.item.topic == topic)
            ]
            return
        for i, r in enumerate(self._rows):
            if r.user_id == user_id and r.item.key == key:
                del self._rows[i]
                break


class KeyedStore:
    """A correct store: one item per (user, key), expiry honoured, newest first.

    Async methods, matching ``MemoryStore`` directly.
    """

    def __init__(self) -> None:
        # user -> key -> item: a save replaces the key's previous value, topic included.
        self._items: dict[str, dict[str, MemoryItem]] = {}

    async def save(
        self,
        user_id: str,
        topic: str,
        key: str,
        value: str,
        at: datetime,
        ttl: timedelta | None = None,
    ) -> None:
        """Remember ``key = value``, replacing any earlier value of ``key``."""
        item = MemoryItem(key, topic, value, at, _expiry(at, ttl))
        self._items.setdefault(user_id, {})[key] = item

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        """The user's live items of ``topic``, most recently saved first (ties by key)."""
        found = [
            item
            for item in self._items.get(user_id, {}).values()
            if item.topic == topic and item.live_at(at)
        ]
        # Newest first: a fact the user stated recently is the likeliest to still hold.
        found.sort(key=lambda i: i.key)
        found.sort(key=lambda i: i.saved_at, reverse=True)
        return found

    async def delete(
        self, user_id: str, *, key: str | None = None, topic: str | None = None
    ) -> None:
        """Forget ``key``, or every key under ``topic``, for ``user_id``."""
        _one_of(key, topic)
        items = self._items.get(user_id)
        if not items:
            return
        if key is not None:
            items.pop(key, None)
            return
        for k in [k for k, item in items.items() if item.topic == topic]:
            del items[k]
