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
        ["I prefer aisle seats. I always fly with Bamboo Airways.", "I live in Da Nang."],
    )
    clock.advance(timedelta(days=9))
    second = await _talk(store, clock, ["Book me a flight to Seoul on Friday."])
    return first, second


def test_memory_agent_books_from_what_an_earlier_session_stored() -> None:
    first, second = anyio.run(_two_sessions)
    assert [c.args for c in first.tool_calls] == [{"key": "home_city", "value": "Da Nang"}]
    (hold,) = second.tool_calls
    assert hold.name == "hold_booking"
    assert hold.args == {
        "destination": "Seoul",
        "date": "Friday",
        "origin": "Da Nang",
        "airline": "Bamboo Airways",
        "seat": "aisle",
        "companion": None,
    }
    assert second.text == "I've held a Bamboo Airways flight from Da Nang to Seoul, aisle seat."


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
def test_append_only_store_fails_the_update_variant_with_the_old_seat(seed: int) -> None:
    results = {r.aspect: r for r in run_memory_e2e(AppendOnlyStore, seed)}
    assert {a for a, r in results.items() if not r.passed} == {"e2e:update"}
    script = build_script("update", seed)
    old_seat = script.sessions[-1].superseded["seat"]
    new_seat = script.sessions[-1].expect["seat"]  # type: ignore[index]
    (line,) = results["e2e:update"].failures
    assert line.startswith("FAIL: session 3 at 2026-")
    assert line.endswith(
        f"hold_booking seat should be {new_seat!r}; got {old_seat!r} "
        f"(the superseded value {old_seat!r})"
    )
