"""End to end: facts stated in one session, relied on in a later one, through MemoryAgent."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from simlab.core import AgentReply, Message, SessionContext
from simlab.memory import (
    E2E_VARIANTS,
    AppendOnlyStore,
    KeyedStore,
    MemoryAgent,
    SimClock,
    build_script,
    run_memory_e2e,
)


async def _talk(store: KeyedStore, clock: SimClock, texts: list[str]) -> AgentReply:
    agent = MemoryAgent(store, "ana", clock)  # a new agent: nothing in its context
    history: list[Message] = []
    reply = AgentReply(text="")
    for n, text in enumerate(texts, start=1):
        history.append(Message(role="user", text=text))
        reply = await agent.reply(history, SessionContext("s", 0, n))
        history.append(Message(role="assistant", text=reply.text))
    return reply


async def _two_sessions() -> tuple[AgentReply, AgentReply]:
    store, clock = KeyedStore(), SimClock()
    first = await _talk(
        store,
        clock,
        ["I prefer to be contacted by chat. I always pay with JCB.", "I live in Osaka."],
    )
    clock.advance(timedelta(days=9))
    second = await _talk(store, clock, ["Order me a tea set for Friday."])
    return first, second


def test_memory_agent_orders_from_what_an_earlier_session_stored() -> None:
    first, second = anyio.run(_two_sessions)
    assert [c.args for c in first.tool_calls] == [{"key": "home_city", "value": "Osaka"}]
    (order,) = second.tool_calls
    assert order.name == "place_order"
    assert order.args == {
        "item": "a tea set",
        "date": "Friday",
        "city": "Osaka",
        "payment": "JCB",
        "contact": "chat",
        "delegate": None,
    }
    assert second.text == (
        "I've ordered a tea set for delivery in Osaka, paid by JCB; we'll contact you by chat."
    )


def test_scripts_are_seeded() -> None:
    assert build_script("update", 4) == build_script("update", 4)
    assert build_script("update", 4) != build_script("update", 5)
    with pytest.raises(ValueError, match="unknown end-to-end variant"):
        build_script("nope", 0)


@pytest.mark.parametrize("seed", range(8))
def test_keyed_store_passes_every_variant(seed: int) -> None:
    results = run_memory_e2e(KeyedStore, seed)
    assert [r.aspect for r in results] == [f"e2e:{v}" for v in E2E_VARIANTS]
    assert all(r.passed for r in results), [r.failures for r in results]


@pytest.mark.parametrize("seed", range(8))
def test_append_only_store_fails_the_update_variant_with_the_old_contact(seed: int) -> None:
    results = {r.aspect: r for r in run_memory_e2e(AppendOnlyStore, seed)}
    assert {a for a, r in results.items() if not r.passed} == {"e2e:update"}
    script = build_script("update", seed)
    old = script.sessions[-1].superseded["contact"]
    new = script.sessions[-1].expect["contact"]  # type: ignore[index]
    (line,) = results["e2e:update"].failures
    assert line.startswith("FAIL: session 3 at 2026-")
    assert line.endswith(
        f"place_order contact should be {new!r}; got {old!r} (the superseded value {old!r})"
    )
