"""The constraints a prefix states, and whether a continuation keeps them.

From an imported log they are the values the user stated, read with the
conversation's domain's phrasings (the reference agent's ``DomainReader``);
from a simlab run they are the facts each ``UserTurn`` disclosed, with the
goal's constraint fields and operators. A later statement of the same fact
overrides an earlier one.

Without a goal, the domain's data says how a stated value binds an action: a
tool's ``limits`` make its slot a ceiling on a result field (a budget on the
total), a lookup's ``where`` that compares a row's field with a slot (at most,
at least) a bound on that field (a latest start time on a start time); any
other slot must be equal to the field of its own name.

A continuation breaks a constraint when an action it takes carries a
conflicting value (the task's final tool, arguments and result; for imported
logs, whose final tool is unknown, any call that is not a lookup, on its
arguments), or when its text states one, as the domain's phrasings read it (a
proposal of a 20:30 start against "start by 12:00"). Not mentioning a
constraint is not breaking it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simlab.agents.reference import DomainReader
from simlab.core import AgentReply, Message, Transcript
from simlab.graders import action_view, satisfies
from simlab.simulators import ReplyReader
from simlab.spec import Constraint, Domain, FactValue, Goal, shipped_domain

Op = Literal["eq", "le", "ge"]

_LOOKUP_PREFIXES = ("search", "get", "list", "find", "lookup", "check", "calculate", "think")
# "reason" only records that a reason was given; it has no value to keep.
_NOT_KEPT = frozenset({"reason"})
_BOUNDS: frozenset[str] = frozenset({"le", "ge"})


def _slot_rules(domain: Domain) -> dict[str, tuple[Op, tuple[str, ...]]]:
    """Each bounded slot's operator and the action fields it bounds (module docstring)."""
    found: dict[str, tuple[Op, list[str]]] = {}

    def bound(slot: str, op: Op, field: str) -> None:
        first, fields = found.setdefault(slot, (op, []))
        if first == op and field not in fields:  # a slot is one kind of bound
            fields.append(field)

    slots = {s.name for s in domain.slots}
    for tool in domain.tools:
        for limit in tool.limits:
            bound(limit.slot, "le", limit.field)
        for lookup in tool.lookups:
            for test in lookup.where:
                if test.op in _BOUNDS and isinstance(test.value, str) and test.value in slots:
                    bound(test.value, "le" if test.op == "le" else "ge", test.field)
    return {slot: (op, tuple(fields)) for slot, (op, fields) in found.items()}


def _kept(domain: Domain, slot: str, value: FactValue, turn: int) -> KeptConstraint:
    op, fields = _slot_rules(domain).get(slot, ("eq", (slot,)))
    return KeptConstraint(fact=slot, slot=slot, value=value, op=op, fields=list(fields), turn=turn)


def stated_values(
    text: str, domain: Domain | None = None, reader: DomainReader | None = None
) -> dict[str, FactValue]:
    """The slot values ``text`` states, read with ``domain``'s phrasings (default: the
    default domain's); ``reader``: that domain's reader, when the caller keeps one."""
    reader = reader or DomainReader(domain or shipped_domain())
    return dict(reader.read(text, ()).slots)


class KeptConstraint(BaseModel):
    """A value stated in the prefix that the continuation must keep.

    Attributes:
        fact: The fact id (a goal's) or the slot name (imported logs).
        slot: The domain slot of the value (agent text is read by it).
        value: The latest value the user stated.
        op: How an action's value must compare with it.
        fields: The action fields that carry it (a result's total for a budget).
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


def constraints_from_messages(
    messages: Sequence[Message], domain: Domain | None = None
) -> list[KeptConstraint]:
    """The values the user stated in ``messages``, latest statement winning.

    Each user message is read as the domain's reference agent reads it: knowing
    the slots the agent's message before it asked for (read as the scripted user
    reads a question, by the slots' ``ask`` cues), so
    a bare answer is read, and a slot asked for and not named takes its
    ``none_value`` (asked about children, "2 adults" means none).

    Args:
        messages: The conversation (the agent's messages say what was asked).
        domain: The domain whose phrasings read them and whose data says how each
            value binds an action; None: the default domain.
    """
    domain = domain or shipped_domain()
    reader, questions = DomainReader(domain), ReplyReader(domain)
    latest: dict[str, tuple[FactValue, int]] = {}
    turn = 0
    asked: tuple[str, ...] = ()
    for msg in messages:
        if msg.role != "user":
            asked = tuple(questions.read(msg.text).slots)
            continue
        turn += 1
        stated = reader.read(msg.text, asked).slots
        for slot in asked:  # asked, a user who names none states its none value
            none = reader.slot_named[slot].none_value
            if none is not None and slot not in stated and slot not in latest:
                stated[slot] = none
        for slot, value in stated.items():
            if slot not in _NOT_KEPT:
                latest[slot] = (value, turn)
        asked = ()
    return [_kept(domain, slot, value, turn) for slot, (value, turn) in latest.items()]


def constraints_from_transcript(
    transcript: Transcript,
    before_turn: int,
    goal: Goal | None = None,
    domain: Domain | None = None,
) -> list[KeptConstraint]:
    """The facts disclosed in user turns ``< before_turn`` and ``before_turn`` itself.

    With the goal, each fact gets its slot and the goal's constraint fields and
    operators; facts the goal puts no constraint on are left out. Without it,
    the fact id is taken as the slot, bound as ``domain``'s data says (default:
    the default domain).
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
            out.append(_kept(domain or shipped_domain(), fact_id, value, turn))
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
    reply: AgentReply,
    constraints: Sequence[KeptConstraint],
    final_tool: str | None = None,
    domain: Domain | None = None,
    reader: DomainReader | None = None,
) -> list[str]:
    """What ``reply`` breaks: one line per broken constraint, empty when it keeps all.

    Tool calls are judged on their arguments; the task's ``final_tool`` call
    also on its result (the price and time of what it did),
    since a lookup's result shows what exists, not what the agent chose. The
    text is read with ``domain``'s phrasings (default: the default domain's), by
    ``reader`` when the caller keeps that domain's reader for many replies.
    """
    broken: list[str] = []
    stated = stated_values(reply.text, domain, reader) if reply.text and constraints else {}
    for c in constraints:
        found = _broken_by_calls(reply, c, final_tool, domain) or _broken_by_text(
            reply.text, stated, c
        )
        if found:
            broken.append(found)
    return broken


def acts(name: str, final_tool: str | None, domain: Domain | None = None) -> bool:
    """Whether a call of tool ``name`` is an action (judged), not a lookup.

    The task's final tool when known; otherwise a tool ``domain`` declares a
    ``write``; for a tool it does not declare, any whose name does not start like
    a lookup's (``search``, ``get``, ``list``...).
    """
    # A lookup's arguments need not be the user's values (a second lookup may
    # start from the first one's result), so only actions are judged.
    if final_tool not in (None, "unknown"):
        return name == final_tool
    tool = domain.tool(name) if domain is not None else None
    if tool is not None:
        return tool.effect == "write"
    return not name.lower().startswith(_LOOKUP_PREFIXES)


def _broken_by_calls(
    reply: AgentReply, c: KeptConstraint, final_tool: str | None, domain: Domain | None
) -> str | None:
    for call in reply.tool_calls:
        if call.error is not None or not acts(call.name, final_tool, domain):
            continue
        # what an action did is in its result too (the total it charged)
        written = call.name == final_tool or (domain is not None and domain.tool(call.name))
        view = action_view(call) if written else call.args
        for field in c.fields:
            if field in view and not satisfies(
                Constraint(fact=c.fact, field=field, op=c.op), view, c.value
            ):
                return f"{call.name} {field}={view[field]!r} breaks {c.describe()}"
    return None


def _broken_by_text(text: str, stated: dict[str, FactValue], c: KeptConstraint) -> str | None:
    found = [(c.slot, stated[c.slot])] if c.slot in stated else []
    if c.op != "eq":  # a bound: a labelled figure of the field it bounds is compared too
        found += [(f, v) for f in c.fields if f != c.slot and (v := _labelled(text, f, c.value))]
    if not found:
        return None
    if c.op != "eq" and re.search(rf"(?<![\d:]){re.escape(str(c.value))}(?![\d:])", text):
        # The reply names the limit itself ("more than your limit of 250 USD"):
        # it is discussing the constraint, not silently breaking it.
        return None
    for name, value in found:
        if not satisfies(Constraint(fact=c.fact, field=name, op=c.op), {name: value}, c.value):
            return f"reply states {name} {value!r}, breaking {c.describe()}"
    return None


_SHAPES = (re.compile(r"\d{1,2}:\d{2}"), re.compile(r"\d{4}-\d{2}-\d{2}"))
"""Text values a bound compares as written: a time and an ISO date (in order as text)."""


def _labelled(text: str, field: str, like: FactValue) -> FactValue | None:
    """The value ``text`` gives an action field by its name (``dep_time: 20:30``,
    ``total_price = 106 USD``): how an agent that labels its figures states them.

    Only a value comparable with ``like``: a number when it is one (``106 USD`` ->
    106), else a time or an ISO date of its shape; None for anything else (a date
    written in words is not compared with an ISO date as text)."""
    m = re.search(rf"(?<![\w]){re.escape(field)}\s*[:=]\s*([^,;\n]+?)\s*(?:[,;\n]|\.\s|\.?$)", text)
    if m is None:
        return None
    raw = m[1]
    if isinstance(like, bool) or not isinstance(like, int | float):
        shape = next((p for p in _SHAPES if p.fullmatch(str(like))), None)
        return raw if shape is not None and shape.fullmatch(raw) else None
    number = re.match(r"-?\d[\d,]*(?:\.\d+)?", raw)
    if number is None:
        return None
    value = float(number[0].replace(",", ""))
    return int(value) if value.is_integer() else f"{value:g}"
