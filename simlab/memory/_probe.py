"""The harness a scenario drives a store through: simulated sessions and recorded checks."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from simlab.memory._catalogue import FactKind
from simlab.memory._clock import SimClock
from simlab.memory._protocol import MemoryItem, MemoryStore
from simlab.memory._result import AspectResult

# Statements within a session are a minute apart, so saved_at orders them.
_STATEMENT_GAP = timedelta(minutes=1)


def stamp(at: datetime) -> str:
    """A simulated instant as evidence prints it."""
    return at.strftime("%Y-%m-%d %H:%M")


def show(items: Iterable[MemoryItem]) -> str:
    """Items as evidence prints them; values through ``repr`` as they are untrusted."""
    return "[" + ", ".join(f"{i.key}={i.value!r} ({i.topic})" for i in items) + "]"


class Probe:
    """Runs one scenario against one store on one simulated clock, recording evidence.

    Args:
        store: The store under test (already adapted to async).
        clock: The scenario's simulated clock.
        aspect: What the scenario checks, for the result.
    """

    def __init__(self, store: MemoryStore, clock: SimClock, aspect: str) -> None:
        self.store = store
        self.clock = clock
        self.aspect = aspect
        self.session = 0
        self._evidence: list[str] = []
        self._passed = True

    def new_session(self, after: timedelta) -> datetime:
        """Start the next session ``after`` the current simulated time."""
        self.session += 1
        return self.clock.advance(after)

    def when(self) -> str:
        """Where in the scenario we are: session number and simulated time."""
        return f"session {self.session} at {stamp(self.clock.now())}"

    async def save(
        self, user: str, kind: FactKind, value: str, ttl: timedelta | None = None
    ) -> datetime:
        """The user states ``kind = value``; returns the simulated time it was saved."""
        at = self.clock.now()
        await self.store.save(user, kind.topic, kind.key, value, at, ttl)
        self.clock.advance(_STATEMENT_GAP)
        return at

    async def retrieve(self, user: str, topic: str) -> list[MemoryItem]:
        """What the store recalls for ``user`` about ``topic`` now."""
        return await self.store.retrieve(user, topic, self.clock.now())

    async def forget(self, user: str, *, key: str | None = None, topic: str | None = None) -> None:
        """The user asks to forget a key or a topic."""
        await self.store.delete(user, key=key, topic=topic)
        self.clock.advance(_STATEMENT_GAP)

    def check(self, ok: bool, what: str) -> None:
        """Record one check: ``what`` names the expectation and what came back."""
        self._passed = self._passed and ok
        self._evidence.append(f"{'ok' if ok else 'FAIL'}: {self.when()}: {what}")

    def crashed(self, error: BaseException) -> None:
        """The store raised: a failed check, recorded with where it happened."""
        self.check(False, f"the store raised {type(error).__name__}: {error}")

    def result(self) -> AspectResult:
        """The scenario's verdict and evidence."""
        return AspectResult(self.aspect, self._passed, list(self._evidence))
