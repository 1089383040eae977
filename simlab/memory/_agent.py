"""A small ordering assistant whose only long-term memory is a ``MemoryStore``.

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
    _Slot(
        "contact",
        "contact",
        re.compile(r"\bprefer to be contacted by (?P<value>[^.]+?)\s*\.", re.I),
    ),
    _Slot("payment", "payment", re.compile(r"\balways pay with (?P<value>[^.]+?)\s*\.", re.I)),
    _Slot("home_city", "home", re.compile(r"\blive in (?P<value>[^.]+?)\s*\.", re.I)),
    _Slot(
        "delegate",
        "errand",
        re.compile(r"\bfor the next (?P<days>\d+) days (?P<value>[^.]+?) acts for me\s*\.", re.I),
    ),
)
_FORGET = re.compile(r"\bforget my (?P<what>contact|payment|home city|delegate)\b", re.I)
_FORGET_KEYS = {
    "contact": "contact",
    "payment": "payment",
    "home city": "home_city",
    "delegate": "delegate",
}
_ORDER = re.compile(r"\border me (?P<item>[^.,]+?)(?: for (?P<date>[^.]+?))?\s*[.?!]", re.I)
# What an order draws from memory, and where each piece lives.
ORDER_FIELDS: dict[str, tuple[str, str]] = {
    "city": ("home", "home_city"),
    "payment": ("payment", "payment"),
    "contact": ("contact", "contact"),
    "delegate": ("errand", "delegate"),
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
        """Remember what the last user message states, forget what it asks, order when asked."""
        text = history[-1].text if history else ""
        calls: list[ToolCall] = []
        for slot in SLOTS:
            for m in slot.pattern.finditer(text):
                calls.append(await self._remember(slot, m))
        for m in _FORGET.finditer(text):
            key = _FORGET_KEYS[m["what"].lower()]
            await self._store.delete(self._user, key=key)
            calls.append(ToolCall(name="forget", args={"key": key}))
        order = _ORDER.search(text)
        if order is not None:
            return await self._order(order, calls)
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
        for topic, _ in ORDER_FIELDS.values():
            if topic not in by_topic:
                by_topic[topic] = await self._store.retrieve(self._user, topic, now)
        # Stores return best first; like most agents, take the first value per key.
        return {
            field: next((i.value for i in by_topic[topic] if i.key == key), None)
            for field, (topic, key) in ORDER_FIELDS.items()
        }

    async def _order(self, m: re.Match[str], calls: list[ToolCall]) -> AgentReply:
        known = await self._recall()
        args: dict[str, Any] = {"item": m["item"].strip(), "date": m["date"], **known}
        calls.append(ToolCall(name="place_order", args=args, result={"status": "placed"}))
        city = known["city"] or "your address"
        text = (
            f"I've ordered {args['item']} for delivery in {city}, paid by "
            f"{known['payment'] or 'card'}; we'll contact you by {known['contact'] or 'email'}"
            + (f", with {known['delegate']} acting for you." if known["delegate"] else ".")
        )
        if known["city"] is None:
            text += " Where should it go?"
        return AgentReply(text=text, tool_calls=calls)
