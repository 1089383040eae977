"""The aspect suite: the keyed store passes, and each broken store fails exactly its aspect."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from simlab.memory import (
    AppendOnlyStore,
    Aspect,
    AspectResult,
    KeyedStore,
    MemoryItem,
    run_memory_suite,
)

SEEDS = range(12)


def failed(results: list[AspectResult]) -> set[str]:
    return {r.aspect for r in results if not r.passed}


@pytest.mark.parametrize("seed", SEEDS)
def test_keyed_store_passes_every_aspect(seed: int) -> None:
    results = run_memory_suite(KeyedStore, seed)
    assert [r.aspect for r in results] == [a.value for a in Aspect]
    assert failed(results) == set()
    assert all(r.evidence and not r.failures for r in results)


class RecordingAppendOnly(AppendOnlyStore):
    """Notes every value saved per (user, key), to know the stale ones independently."""

    log: dict[tuple[str, str], list[str]]

    def __init__(self) -> None:
        super().__init__()
        self.log = {}

    def save(self, user_id, topic, key, value, at, ttl=None):  # type: ignore[no-untyped-def]
        self.log.setdefault((user_id, key), []).append(value)
        super().save(user_id, topic, key, value, at, ttl)


@pytest.mark.parametrize("seed", SEEDS)
def test_append_only_fails_update_and_deletion_only_naming_stale_values(seed: int) -> None:
    made: list[RecordingAppendOnly] = []

    def factory() -> RecordingAppendOnly:
        made.append(RecordingAppendOnly())
        return made[-1]

    results = {r.aspect: r for r in run_memory_suite(factory, seed)}
    # Appending keeps corrected values; deleting the first row of a key leaves the
    # correction behind. TTL, topics and users it gets right.
    assert failed(list(results.values())) == {"update", "deletion"}
    update_log = made[list(Aspect).index(Aspect.UPDATE)].log
    superseded = [vals[:-1] for vals in update_log.values() if len(vals) > 1]
    assert superseded, "the update scenario must restate at least one fact"
    text = "\n".join(results["update"].failures)
    assert len(results["update"].failures) == len(superseded)
    for old_values in superseded:
        assert f"stale value(s) {old_values!r} returned" in text


class NoTtlStore(KeyedStore):
    async def save(self, user_id, topic, key, value, at, ttl=None):  # type: ignore[no-untyped-def]
        await super().save(user_id, topic, key, value, at, None)


class ForgetNothingStore(KeyedStore):
    async def delete(self, user_id, *, key=None, topic=None):  # type: ignore[no-untyped-def]
        return None


class RecencyOnlyStore(KeyedStore):
    """Ranks by recency alone: every live fact of the user, newest first, whatever the topic."""

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        items = [i for i in self._items.get(user_id, {}).values() if i.live_at(at)]
        return sorted(items, key=lambda i: i.saved_at, reverse=True)


class SharedStore(KeyedStore):
    """Forgets whose fact is whose: one namespace for all users."""

    async def save(self, user_id, topic, key, value, at, ttl=None):  # type: ignore[no-untyped-def]
        await super().save("everyone", topic, key, value, at, ttl)

    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        return await super().retrieve("everyone", topic, at)

    async def delete(self, user_id, *, key=None, topic=None):  # type: ignore[no-untyped-def]
        await super().delete("everyone", key=key, topic=topic)


@pytest.mark.parametrize(
    ("store", "broken"),
    [
        (NoTtlStore, {"staleness"}),
        (ForgetNothingStore, {"deletion"}),
        (RecencyOnlyStore, {"retrieval"}),
        (SharedStore, {"isolation"}),
    ],
)
@pytest.mark.parametrize("seed", SEEDS)
def test_each_aspect_catches_its_own_bug(
    store: type[KeyedStore], broken: set[str], seed: int
) -> None:
    assert failed(run_memory_suite(store, seed)) == broken


def test_staleness_evidence_names_the_expired_value_and_its_expiry() -> None:
    (result,) = [r for r in run_memory_suite(NoTtlStore, 5) if r.aspect == "staleness"]
    assert result.failures
    assert all("should not be returned" in f and "expire" in f for f in result.failures)
    # Every line says when, on the simulated clock.
    assert all(f.startswith("FAIL: session ") and " at 2026-" in f for f in result.failures)


class CrashingStore(KeyedStore):
    async def retrieve(self, user_id: str, topic: str, at: datetime) -> list[MemoryItem]:
        raise RuntimeError("disk on fire")


def test_a_crashing_store_fails_every_aspect_with_the_error_as_evidence() -> None:
    results = run_memory_suite(CrashingStore, 0)
    assert failed(results) == {a.value for a in Aspect}
    assert all(
        r.failures[-1].endswith("the store raised RuntimeError: disk on fire") for r in results
    )


def test_same_seed_same_scenarios_other_seed_other_scenarios() -> None:
    a = run_memory_suite(AppendOnlyStore, 7)
    assert a == run_memory_suite(AppendOnlyStore, 7)
    b = run_memory_suite(AppendOnlyStore, 8)
    assert [r.evidence for r in a] != [r.evidence for r in b]


def test_simulated_time_moves_days_between_sessions() -> None:
    storage = run_memory_suite(KeyedStore, 0)[0]
    # Session 2 is 1-30 days after session 1, which starts at the fixed clock start.
    when = storage.evidence[0].split(" at ", 1)[1][:16]
    gap = datetime.fromisoformat(when) - datetime(2026, 1, 5, 9, 0)
    assert timedelta(days=1) <= gap <= timedelta(days=30, minutes=10)
