"""The constraints a prefix states, and whether a continuation keeps them.

From an imported log they are the travel values the user stated (read with the
reference agent's ``read_message``); from a simlab run they are the facts each
``UserTurn`` disclosed, with the goal's constraint fields and operators. A
later statement of the same fact overrides an earlier one.

A continuation breaks a constraint when an action it takes carries a
conflicting value (the task's final tool, arguments and result; for imported
logs, whose final tool is unknown, any call that is not a lookup, on its
arguments), or when its text states one (a proposal of a 20:30 slot
against "leave by 12:00"). Not mentioning a constraint is not breaking it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simlab.agents.reference import read_message
from simlab.core import AgentReply, Message, Transcript
from simlab.graders import action_view, satisfies
from simlab.spec import Constraint, FactValue, Goal

Op = Literal["eq", "le", "ge"]

# How a stated slot is compared, and which action fields carry it.
_SLOT_OPS: dict[str, Op] = {"budget": "le", "latest_departure": "le", "bags": "ge"}
_SLOT_FIELDS: dict[str, tuple[str, ...]] = {
    "budget": ("total_price",),
    "latest_departure": ("dep_time",),
    "date": ("date",),
}
_LOOKUP_PREFIXES = ("search", "get", "list", "find", "lookup", "check", "calculate", "think")
# "reason" only records that a reason was given; it has no value to keep.
_NOT_KEPT = frozenset({"reason"})


class KeptConstraint(BaseModel):
    """A value stated in the prefix that the continuation must keep.

    Attributes:
        fact: The fact id (a goal's) or the slot name (imported logs).
        slot: The travel slot of the value (``read_message`` reads agent text by it).
        value: The latest value the user stated.
        op: How an action's value must compare with it.
        fields: The action fields that carry it (``total_price`` for a budget).
        turn: The user turn that stated it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    fact: str
    slot: str
    value: FactValue
    op: Op = "eq"
    fields: list[str] = Field(default_factory=list)
    turn: int = 0

    def describe(self) -> str:
        """``budget <= 160 (turn 1)``."""
        sign = {"eq": "==", "le": "<=", "ge": ">="}[self.op]
        return f"{self.fact} {sign} {self.value} (turn {self.turn})"


def constraints_from_messages(messages: Sequence[Message]) -> list[KeptConstraint]:
    """The travel values the user stated in ``messages``, latest statement winning."""
    latest: dict[str, tuple[FactValue, int]] = {}
    turn = 0
    for msg in messages:
        if msg.role != "user":
            continue
        turn += 1
        for slot, value in read_message(msg.text).slots.items():
            if slot not in _NOT_KEPT:
                latest[slot] = (value, turn)
    return [
        KeptConstraint(
            fact=slot,
            slot=slot,
            value=value,
            op=_SLOT_OPS.get(slot, "eq"),
            fields=list(_SLOT_FIELDS.get(slot, (slot,))),
            turn=turn,
        )
        for slot, (value, turn) in latest.items()
    ]


def constraints_from_transcript(
    transcript: Transcript, before_turn: int, goal: Goal | None = None
) -> list[KeptConstraint]:
    """The facts disclosed in user turns ``< before_turn`` and ``before_turn`` itself.

    With the goal, each fact gets its slot and the goal's constraint fields and
    operators; facts the goal puts no constraint on are left out. Without it,
    the fact id is taken as the slot.
    """
    latest: dict[str, tuple[FactValue, int]] = {}
    for t in transcript.turns:
        if t.index > before_turn or t.user.stop is not None:
            break
        for fact_id, value in t.user.disclosed.items():
            latest[fact_id] = (value, t.index)
    out: list[KeptConstraint] = []
    for fact_id, (value, turn) in latest.items():
        if goal is None:
            out.append(
                KeptConstraint(
                    fact=fact_id,
                    slot=fact_id,
                    value=value,
                    op=_SLOT_OPS.get(fact_id, "eq"),
                    fields=list(_SLOT_FIELDS.get(fact_id, (fact_id,))),
                    turn=turn,
                )
            )
            continue
        rules = [c for c in goal.constraints if c.fact == fact_id]
        slot = next((f.slot for f in goal.facts if f.id == fact_id), fact_id)
        for op in dict.fromkeys(c.op for c in rules):
            fields = [c.field for c in rules if c.op == op]
            out.append(
                KeptConstraint(
                    fact=fact_id, slot=slot, value=value, op=op, fields=fields, turn=turn
                )
            )
    return out


def broken_constraints(
    reply: AgentReply, constraints: Sequence[KeptConstraint], final_tool: str | None = None
) -> list[str]:
    """What ``reply`` breaks: one line per broken constraint, empty when it keeps all.

    Tool calls are judged on their arguments; the task's ``final_tool`` call
    also on its result (the price and time of what it did),
    since a lookup's result shows what exists, not what the agent chose.
    """
    broken: list[str] = []
    stated = read_message(reply.text).slots if reply.text else {}
    for c in constraints:
        found = _broken_by_calls(reply, c, final_tool) or _broken_by_text(reply.text, stated, c)
        if found:
            broken.append(found)
    return broken


def acts(name: str, final_tool: str | None) -> bool:
    """Whether a call of tool ``name`` is an action (judged), not a lookup.

    The task's final tool when known; otherwise any tool whose name does not
    start like a lookup's (``search``, ``get``, ``list``...).
    """
    # A lookup's arguments need not be the user's values (a second lookup may
    # start from the first one's result), so only actions are judged.
    if final_tool not in (None, "unknown"):
        return name == final_tool
    return not name.lower().startswith(_LOOKUP_PREFIXES)


def _broken_by_calls(reply: AgentReply, c: KeptConstraint, final_tool: str | None) -> str | None:
    for call in reply.tool_calls:
        if call.error is not None or not acts(call.name, final_tool):
            continue
        view = action_view(call) if call.name == final_tool else call.args
        for field in c.fields:
            if field in view and not satisfies(
                Constraint(fact=c.fact, field=field, op=c.op), view, c.value
            ):
                return f"{call.name} {field}={view[field]!r} breaks {c.describe()}"
    return None


def _broken_by_text(text: str, stated: dict[str, FactValue], c: KeptConstraint) -> str | None:
    if c.slot not in stated:
        return None
    if c.op != "eq" and re.search(rf"(?<![\d:]){re.escape(str(c.value))}(?![\d:])", text):
        # The reply names the limit itself ("more than your limit of 250 USD"):
        # it is discussing the constraint, not silently breaking it.
        return None
    rule = Constraint(fact=c.fact, field=c.slot, op=c.op)
    if satisfies(rule, stated, c.value):
        return None
    return f"reply states {c.slot} {stated[c.slot]!r}, breaking {c.describe()}"
