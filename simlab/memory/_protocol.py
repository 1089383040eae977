"""What a memory store is to simlab: save facts, retrieve them by topic at a time, delete them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """One fact a memory store kept, as it hands it back.

    Attributes:
        key: What the fact is about (``seat``, ``home_city``); one live value per user and key.
        topic: The topic it is retrieved under (``preferences``, ``home``).
        value: The kept value, as the user stated it.
        saved_at: Simulated time of the save.
        expires_at: When it stops applying (``saved_at + ttl``), or ``None`` if it never does.
    """

    key: str
    topic: str
    value: str
    saved_at: datetime
    expires_at: datetime | None = None

    def live_at(self, at: datetime) -> bool:
        """Whether the fact still applies at ``at`` (an item is expired from ``expires_at`` on)."""
        return self.saved_at <= at and (self.expires_at is None or at < self.expires_at)


@runtime_checkable
class MemoryStore(Protocol):
    """Long-term memory of an agent, per user, on simulated time.

    Implementations may be async (this protocol) or plain sync methods with the
    same signatures; ``as_memory_store`` adapts either. The contract the aspect
    suite checks:

    * ``save`` of a key a user already has replaces it: only the newest value is retrieved;
    * ``retrieve`` returns the user's live facts for ``topic``, best first; other
      topics' facts, if returned at all, come after them;
    * a fact saved with ``ttl`` is not retrieved at or after ``saved_at + ttl``;
    * ``delete`` by key or by topic removes every value of it for that user, for good;
    * no user ever sees another user's facts.
    """

    async def save(
        self,
        user_id: str,
        topic: str,
        key: str,
        value: str,
        at: datetime,
        ttl: timedelta | None = None,
    ) -> None:
        """Remember ``key = value`` under ``topic`` for ``user_id`` as of ``at``."""
        ...

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        """The user's facts relevant to ``topic`` that apply at ``at``, best first."""
        ...

    async def delete(
        self, user_id: str, *, key: str | None = None, topic: str | None = None
    ) -> None:
        """Forget a key, or every fact under a topic, for ``user_id`` (exactly one is given)."""
        ...
