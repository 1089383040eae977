"""A small travel assistant whose only long-term memory is a ``MemoryStore``.

It exists so the memory aspects can be checked end to end: a new ``MemoryAgent``
serves each conversation, so anything it knows from an earlier session came
from the store. Its understanding is a handful of fixed English phrasings, the
ones the scripted memory sessions use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext, ToolCall
from simlab.memory._adapter import as_memory_store
from simlab.memory._clock import SimClock
from simlab.memory._protocol import MemoryItem


@dataclass(frozen=True, slots=True)
class _Slot:
    key: str
    topic: str
    pattern: re.Pattern[str]


# Precompiled once: replies must stay cheap enough for the engine's turn budget.
SLOTS: tuple[_Slot, ...] = (
    _Slot("seat", "flight", re.compile(r"\bprefer (?P<value>[^.]+?) seats?\b", re.I)),
    _Slot("airline", "flight", re.compile(r"\bfly with (?P<value>[^.]+?)\s*\.", re.I)),
    _Slot("home_city", "home", re.compile(r"\blive in (?P<value>[^.]+?)\s*\.", re.I)),
    _Slot(
        "companion",
        "trip",
        re.compile(
            r"\bfor the next (?P<days>\d+) days I am travelling with (?P<value>[^.]+?)\s*\.", re.I
        ),
    ),
)
_FORGET = re.compile(r"\bforget my (?P<what>seat|airline|home city|companion)\b", re.I)
_FORGET_KEYS = {
    "seat": "seat",
    "airline": "airline",
    "home city": "home_city",
    "companion": "companion",
}
_BOOK = re.compile(
    r"\bbook me a flight to (?P<dest>[^.,]+?)(?: on (?P<date>[^.]+?))?\s*[.?!]", re.I
)
# What a booking draws from memory, and where each piece lives.
BOOKING_FIELDS: dict[str, tuple[str, str]] = {
    "origin": ("home", "home_city"),
    "airline": ("flight", "airline"),
    "seat": ("flight", "seat"),
    "companion": ("trip", "companion"),
}


class MemoryAgent:
    """Answers one user's conversation, remembering through ``store`` only.

    Args:
        store: Any memory store (sync or async methods).
        user_id: Whose memory this conversation reads and writes.
        clock: The simulated clock; every save and retrieval happens at its ``now()``.
    """

    capabilities = AgentCapabilities()

    def __init__(self, store: object, user_id: str, clock: SimClock) -> None:
        self._store = as_memory_store(store)
        self._user = user_id
        self._clock = clock

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Remember what the last user message states, forget what it asks, book when asked."""
        text = history[-1].text if history else ""
        calls: list[ToolCall] = []
        for slot in SLOTS:
            for m in slot.pattern.finditer(text):
                calls.append(await self._remember(slot, m))
        for m in _FORGET.finditer(text):
            key = _FORGET_KEYS[m["what"].lower()]
            await self._store.delete(self._user, key=key)
            calls.append(ToolCall(name="forget", args={"key": key}))
        booking = _BOOK.search(text)
        if booking is not None:
            return await self._book(booking, calls)
        said = ", ".join(f"{c.args['key']}" for c in calls) or "nothing new"
        return AgentReply(text=f"Noted ({said}). Anything else?", tool_calls=calls)

    async def _remember(self, slot: _Slot, m: re.Match[str]) -> ToolCall:
        ttl = timedelta(days=int(m["days"])) if "days" in slot.pattern.groupindex else None
        value = m["value"].strip()
        await self._store.save(self._user, slot.topic, slot.key, value, self._clock.now(), ttl)
        args: dict[str, Any] = {"key": slot.key, "value": value}
        if ttl is not None:
            args["ttl_days"] = ttl.days
        return ToolCall(name="remember", args=args)

    async def _recall(self) -> dict[str, str | None]:
        now = self._clock.now()
        by_topic: dict[str, list[MemoryItem]] = {}
        for topic, _ in BOOKING_FIELDS.values():
            if topic not in by_topic:
                by_topic[topic] = await self._store.retrieve(self._user, topic, now)
        # Stores return best first; like most agents, take the first value per key.
        return {
            field: next((i.value for i in by_topic[topic] if i.key == key), None)
            for field, (topic, key) in BOOKING_FIELDS.items()
        }

    async def _book(self, m: re.Match[str], calls: list[ToolCall]) -> AgentReply:
        known = await self._recall()
        args: dict[str, Any] = {"destination": m["dest"].strip(), "date": m["date"], **known}
        calls.append(ToolCall(name="hold_booking", args=args, result={"status": "held"}))
        origin = known["origin"] or "your city"
        text = (
            f"I've held a {known['airline'] or 'best-fare'} flight from {origin} to "
            f"{args['destination']}, {known['seat'] or 'any'} seat"
            + (f", travelling with {known['companion']}." if known["companion"] else ".")
        )
        if known["origin"] is None:
            text += " Where will you fly from?"
        return AgentReply(text=text, tool_calls=calls)
