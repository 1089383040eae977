"""Hand-built sessions for the diagnosis tests: a one-way goal and a transcript builder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simlab.core import (
    AgentReply,
    ContextInfo,
    SessionKey,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
)
from simlab.graders import grade
from simlab.spec import Goal
from simlab.store import SessionRecord, StopReason

GOAL = Goal.model_validate(
    {
        "id": "one_way",
        "title": "One way",
        "final_tool": "hold_booking",
        "facts": [
            {"id": "origin", "slot": "origin", "value": "HAN"},
            {"id": "passengers", "slot": "passengers", "value": 2},
            {"id": "budget", "slot": "budget", "value": 160, "required": False},
            {"id": "latest_departure", "slot": "latest_departure", "value": "12:00"},
        ],
        "constraints": [
            {"fact": "origin", "field": "origin"},
            {"fact": "passengers", "field": "passengers"},
            {"fact": "budget", "field": "total_price", "op": "le"},
            {"fact": "latest_departure", "field": "dep_time", "op": "le"},
        ],
        "expected_tools": ["search_flights", "hold_booking"],
        "confirm_fields": ["reference", "total_price"],
    }
)

EARLY = {"flight_id": "VJ1078", "dep_time": "20:30", "price": 120}  # cheap, too late
GOOD = {"flight_id": "VJ1074", "dep_time": "10:00", "price": 138}


def booking(flight: dict[str, Any], passengers: int = 2, ref: str = "AB12CD") -> ToolCall:
    """A successful hold_booking of ``flight`` with a result the graders can check."""
    return ToolCall(
        name="hold_booking",
        args={"flight_id": flight["flight_id"], "passengers": passengers},
        result={
            "reference": ref,
            "origin": "HAN",
            "total_price": flight["price"],
            "dep_time": flight["dep_time"],
        },
    )


def search() -> ToolCall:
    """A flight search."""
    return ToolCall(name="search_flights", args={"origin": "HAN"}, result=[])


@dataclass
class T:
    """One turn: what the user disclosed and how the agent answered."""

    disclosed: dict[str, Any] = field(default_factory=dict)
    reply: str = "Which date?"
    calls: list[ToolCall] = field(default_factory=list)
    seen: list[int] | None = None  # default: every turn so far
    causes: list[dict[str, Any]] = field(default_factory=list)
    user: str = "..."


def session(
    turns: list[T], mode: str = "sharded", persona: str = "p", goal: Goal = GOAL
) -> SessionRecord:
    """A graded record of ``turns`` followed by the user's DONE."""
    out: list[Turn] = []
    for i, t in enumerate(turns, start=1):
        seen = t.seen if t.seen is not None else list(range(1, i + 1))
        reply = AgentReply(
            text=t.reply,
            tool_calls=t.calls,
            context=ContextInfo(seen_user_turns=seen),
            meta={"true_causes": t.causes},
        )
        out.append(Turn(index=i, user=UserTurn(text=t.user, disclosed=t.disclosed), agent=reply))
    out.append(
        Turn(index=len(turns) + 1, user=UserTurn(text="bye", stop=StopSignal.DONE), agent=None)
    )
    transcript = Transcript(turns=out)
    graded = grade(goal, transcript)
    return SessionRecord(
        key=SessionKey(persona=persona, goal=goal.id, mode=mode, rep=0),
        seed=1,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=transcript.n_user_turns,
        score=graded.score,
        passed=graded.passed,
        checks=graded.checks,
        transcript=transcript,
    )


CONFIRMED = "Done! Reference AB12CD, total 138 USD."
"""A confirmation stating the confirm fields of a GOOD booking."""
