"""Small inline goals and a driver that plays scripted agent replies against a simulator."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.simulators import ScriptedSimulator
from simlab.spec import Goal, Language, Persona, Traits

BOOKING_GOAL: dict[str, Any] = {
    "id": "hanoi_danang",
    "title": "Hanoi to Da Nang",
    "final_tool": "hold_booking",
    "facts": [
        {"id": "origin", "slot": "origin", "value": "HAN"},
        {"id": "destination", "slot": "destination", "value": "DAD"},
        {"id": "date", "slot": "date", "value": "2026-12-20"},
        {"id": "adults", "slot": "passengers", "value": 2},
        {"id": "budget", "slot": "budget", "value": 400, "required": False},
        {"id": "latest", "slot": "latest_departure", "value": "10:00", "required": False},
    ],
    "mind_changes": [{"fact": "date", "value": "2026-12-21"}],
    "constraints": [
        {"fact": "origin", "field": "origin"},
        {"fact": "destination", "field": "destination"},
        {"fact": "date", "field": "date"},
        {"fact": "adults", "field": "passengers"},
        {"fact": "budget", "field": "total_price", "op": "le"},
        {"fact": "latest", "field": "departure_time", "op": "le"},
    ],
}


def make_goal(**overrides: Any) -> Goal:
    """The Hanoi -> Da Nang booking goal, with top-level fields replaced."""
    return Goal.model_validate({**BOOKING_GOAL, **overrides})


def make_persona(language: Language = "en", /, **traits: Any) -> Persona:
    """A persona with the given traits (defaults elsewhere)."""
    return Persona(id="tester", name="Tester", language=language, traits=Traits(**traits))


def booking(**args: Any) -> ToolCall:
    """A successful hold_booking call; ``total_price``/``departure_time`` go in the result."""
    result = {k: args.pop(k) for k in ("total_price", "departure_time") if k in args}
    return ToolCall(name="hold_booking", args=args, result=result)


GOOD_ARGS: dict[str, Any] = {
    "origin": "HAN",
    "destination": "DAD",
    "date": "2026-12-20",
    "passengers": 2,
    "total_price": 350,
    "departure_time": "08:30",
}

Replier = Callable[[int, UserTurn], AgentReply]


def play(
    sim: ScriptedSimulator, replies: Replier | Sequence[AgentReply | str], max_turns: int = 30
) -> list[UserTurn]:
    """Drive ``sim`` until it stops or ``max_turns``; the agent's reply to turn t is ``replies``."""
    transcript = Transcript()
    out: list[UserTurn] = []
    for t in range(1, max_turns + 1):
        user = sim.write(t, transcript)
        out.append(user)
        if user.stop is not None:
            break
        if callable(replies):
            reply = replies(t, user)
        else:
            r = replies[min(t - 1, len(replies) - 1)]
            reply = AgentReply(text=r) if isinstance(r, str) else r
        transcript = Transcript(turns=(*transcript.turns, Turn(index=t, user=user, agent=reply)))
    return out
