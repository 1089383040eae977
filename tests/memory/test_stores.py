"""The reference stores and the clock, checked by hand on small cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import pytest

from simlab.memory import (
    DEFAULT_START,
    AppendOnlyStore,
    KeyedStore,
    MemoryItem,
    MemoryStoreError,
    SimClock,
    as_memory_store,
)

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def test_clock_starts_fixed_and_only_moves_forward() -> None:
    clock = SimClock()
    assert clock.now() == DEFAULT_START == T0
    assert clock.advance(timedelta(days=3)) == datetime(2026, 1, 8, 9, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-DAY)
    with pytest.raises(ValueError, match="timezone-aware"):
        SimClock(datetime(2026, 1, 1))


def test_item_is_live_from_save_until_expiry_exclusive() -> None:
    item = MemoryItem("seat", "flight", "aisle", T0, T0 + 7 * DAY)
    assert not item.live_at(T0 - timedelta(seconds=1))
    assert item.live_at(T0)
    assert item.live_at(T0 + 7 * DAY - timedelta(seconds=1))
    assert not item.live_at(T0 + 7 * DAY)


async def _keyed_scenario() -> None:
    s = KeyedStore()
    await s.save("ana", "flight", "seat", "window", T0)
    await s.save("ana", "flight", "airline", "Bamboo Airways", T0 + timedelta(minutes=1))
    await s.save("ana", "food", "diet", "vegan", T0)
    await s.save("ana", "flight", "seat", "aisle", T0 + 2 * DAY, ttl=10 * DAY)
    await s.save("bob", "flight", "seat", "exit row", T0)
    got = await s.retrieve("ana", "flight", T0 + 3 * DAY)
    # Newest first; the seat's old value is gone.
    assert [(i.key, i.value) for i in got] == [("seat", "aisle"), ("airline", "Bamboo Airways")]
    assert got[0].expires_at == T0 + 12 * DAY
    # The replacement's ttl applies: after day 12 only the airline remains.
    got = await s.retrieve("ana", "flight", T0 + 12 * DAY)
    assert [i.value for i in got] == ["Bamboo Airways"]
    await s.delete("ana", key="airline")
    await s.delete("ana", topic="food")
    assert await s.retrieve("ana", "flight", T0 + 13 * DAY) == []
    assert await s.retrieve("ana", "food", T0 + 13 * DAY) == []
    assert [i.value for i in await s.retrieve("bob", "flight", T0 + 13 * DAY)] == ["exit row"]
    with pytest.raises(ValueError, match="exactly one"):
        await s.delete("ana", key="seat", topic="flight")
    with pytest.raises(ValueError, match="positive"):
        await s.save("ana", "flight", "seat", "aisle", T0, ttl=timedelta(0))


def test_keyed_store_replaces_expires_and_deletes() -> None:
    anyio.run(_keyed_scenario)


def test_append_only_store_keeps_old_values_and_deletes_one_row() -> None:
    s = AppendOnlyStore()
    s.save("ana", "flight", "seat", "window", T0)
    s.save("ana", "flight", "seat", "aisle", T0 + DAY)
    s.save("ana", "flight", "airline", "Vietjet Air", T0 + DAY, ttl=5 * DAY)
    assert [i.value for i in s.retrieve("ana", "flight", T0 + 2 * DAY)] == [
        "window",
        "aisle",
        "Vietjet Air",
    ]
    # It does honour ttl.
    assert [i.value for i in s.retrieve("ana", "flight", T0 + 6 * DAY)] == ["window", "aisle"]
    # It removes the first row of a key only: the corrected value survives "forget".
    s.delete("ana", key="seat")
    assert [i.value for i in s.retrieve("ana", "flight", T0 + 7 * DAY)] == ["aisle"]
    s.delete("ana", topic="flight")
    assert s.retrieve("ana", "flight", T0 + 7 * DAY) == []


class _SyncStoreWithOwnItems:
    """Sync methods and its own item class: the adapter must accept both."""

    class Item:
        def __init__(self, value: str) -> None:
            self.key, self.topic, self.value = "seat", "flight", value
            self.saved_at, self.expires_at = T0, None

    def __init__(self) -> None:
        self.values: list[str] = []

    def save(self, user_id, topic, key, value, at, ttl=None):  # type: ignore[no-untyped-def]
        self.values.append(value)

    def retrieve(self, user_id, topic, at):  # type: ignore[no-untyped-def]
        return (self.Item(v) for v in self.values)

    def delete(self, user_id, *, key=None, topic=None):  # type: ignore[no-untyped-def]
        self.values.clear()


async def _adapted() -> list[MemoryItem]:
    store = as_memory_store(_SyncStoreWithOwnItems())
    await store.save("ana", "flight", "seat", "aisle", T0)
    return await store.retrieve("ana", "flight", T0)


def test_adapter_accepts_sync_methods_and_duck_typed_items() -> None:
    assert anyio.run(_adapted) == [MemoryItem("seat", "flight", "aisle", T0, None)]


def test_adapter_names_what_is_missing() -> None:
    with pytest.raises(MemoryStoreError, match=r"no retrieve\(\), delete\(\)"):
        as_memory_store(type("Half", (), {"save": lambda self: None})())


async def _bad_retrieve() -> None:
    class Bad(_SyncStoreWithOwnItems):
        def retrieve(self, user_id, topic, at):  # type: ignore[no-untyped-def]
            return [{"key": "seat"}]

    await as_memory_store(Bad()).retrieve("ana", "flight", T0)


def test_adapter_rejects_malformed_items() -> None:
    with pytest.raises(MemoryStoreError, match="without key, topic, value"):
        anyio.run(_bad_retrieve)
