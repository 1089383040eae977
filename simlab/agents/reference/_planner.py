"""Choosing the reference agent's next step in a domain: ask, look up, or propose.

A task is an intent's final tool. Its chain is the tools it ``requires`` (lookups
made first: an identity check, a record's owner) and then the final tool. The agent
asks for every required slot still missing, in the domain's order; makes the
chain's lookups and the final tool's own ``lookups`` (a row chosen, its fields
picked); quotes the call against the user's limits; and proposes the call.

A looked-up record whose field holds another customer's identity (a value that
matches an ``identity`` slot's pattern but is not the caller's) stops the request:
the agent will not act on someone else's record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from simlab.agents.reference._fixtures import FixtureAnswers
from simlab.agents.reference._rows import choose_row, compare, rows_of, source_value
from simlab.agents.reference._skill import Decision, Plan
from simlab.core import ToolCall
from simlab.spec import Domain, DomainTool, FactValue, ToolLookup

WriteValue = Callable[[str, Any, str], str]
"""A slot's (or a limited field's) value as the agent writes it, in a language."""

_NO_DEFAULT = object()

_SlotsKey = tuple[tuple[str, type, FactValue], ...]
"""Slot values by name as a cache key, each with its type (``True == 1``, a schema tells
them apart): no decision depends on the order the values were said in."""


@dataclass(slots=True)
class _Calls:
    """The fixture calls one decision makes, in order."""

    canary: str | None  # the session's, planted in results; None: results as fixtures hold them
    made: list[ToolCall] = field(default_factory=list)
    saw_canary: bool = False  # a result it read holds a ``{canary}``: the session's own


class Planner:
    """Decides a task's next step from the slot values in view, for a run's sessions.

    A decision is a pure function of the task and the slot values while no result it
    reads holds a ``{canary}``: such decisions (and their calls) are worked out once a
    run; the others afresh at each call, with the session's canary.

    Args:
        domain: The domain served.
        answers: The domain's fixture answers for the run.
        write_value: How a value is written (an over-limit problem states two).
    """

    def __init__(self, domain: Domain, answers: FixtureAnswers, write_value: WriteValue) -> None:
        self.domain = domain
        self._answers = answers
        self._write_value = write_value
        # by the task and the slot values: the decisions a run's sessions share
        self._decide_for_any_session = lru_cache(maxsize=4096)(self._decide_without_canary)
        self._default_lang = next(iter(domain.languages), "en")
        self.tool_named: dict[str, DomainTool] = {}
        """The domain's tools by name (the first of a name, as ``Domain.tool`` finds it)."""
        for tool in domain.tools:
            self.tool_named.setdefault(tool.name, tool)
        self._slot_order = [s.name for s in domain.slots]
        self._identity_slots = [
            (s.name, re.compile(str(s.pattern), re.IGNORECASE).fullmatch)
            for s in domain.slots
            if s.identity and s.pattern
        ]

    def infer_task(self, slots: Mapping[str, FactValue]) -> str | None:
        """The intent whose final tool alone takes the slots the user stated, if one does."""
        takes = {
            i.tool: set(self.domain.slots_needed(i.tool, False))
            if i.tool in self.tool_named
            else set()
            for i in self.domain.intents
        }
        shared = set.intersection(*takes.values()) if takes else set()
        scores = {tool: len((needed - shared) & set(slots)) for tool, needed in takes.items()}
        best = max(scores.values(), default=0)
        winners = [tool for tool, score in scores.items() if score == best]
        if len(winners) > 1:  # a tie: the one intent the stated slots already complete
            winners = [tool for tool in winners if takes[tool] <= set(slots)] or winners
        return winners[0] if best > 0 and len(winners) == 1 else None

    def decide(
        self,
        task: str,
        slots: Mapping[str, FactValue],
        canary: str,
        record: list[ToolCall] | None,
    ) -> Decision:
        """Ask for what is missing, look up what must be checked, or propose the call;
        the lookups made (the session's ``canary`` planted) go to ``record`` if given."""
        key = _slots_key(slots)
        if key is not None:
            decision, made, saw_canary = self._decide_for_any_session(task, key)
            if not saw_canary:
                if record is not None:  # calls of this reply's own
                    record.extend(_copy(c) for c in made)
                return decision
        calls = _Calls(canary)
        decision = self._decide(task, slots, calls)
        if record is not None:
            record.extend(calls.made)
        return decision

    def _decide_without_canary(
        self, task: str, key: _SlotsKey
    ) -> tuple[Decision, tuple[ToolCall, ...], bool]:
        calls = _Calls(None)
        decision = self._decide(task, {name: value for name, _, value in key}, calls)
        return decision, tuple(calls.made), calls.saw_canary

    def _decide(self, task: str, slots: Mapping[str, FactValue], calls: _Calls) -> Decision:
        chain = self._chain(task)
        if not chain:
            return Decision(problem="refused", detail={"error": f"no tool {task!r}"})
        needed = self.domain.slots_needed(chain[-1].name, True)
        missing = tuple(s for s in needed if s not in slots)
        if missing:
            return Decision(ask=missing)
        *lookups, final = chain
        records: dict[str, Mapping[str, Any]] = {}
        for tool in lookups:
            stop = self._check(tool, slots, records, calls)
            if stop is not None:
                return stop
        args = _args(final, slots)
        for lookup in final.lookups:
            stop = self._look(lookup, slots, records, args, calls)
            if stop is not None:
                return stop
        args = _canonical(final, args)
        quoted: dict[str, Any] = {}
        if final.limits:
            over = self._over_limit(final, args, slots, quoted, calls)
            if over is not None:
                return over
        return Decision(plan=Plan(final.name, tuple(args.items()), quoted))

    def _chain(self, task: str) -> list[DomainTool]:
        """The tools a task calls, lookups first, the final tool last."""
        final = self.tool_named.get(task)
        if final is None:
            return []
        chain: list[DomainTool] = []
        for name in final.requires:
            tool = self.tool_named.get(name)
            if tool is not None and tool not in chain:
                chain.append(tool)
        return [*chain, final]

    def _check(
        self,
        tool: DomainTool,
        slots: Mapping[str, FactValue],
        records: dict[str, Mapping[str, Any]],
        calls: _Calls,
    ) -> Decision | None:
        """Make one lookup the task requires; a decision when it stops the request."""
        call = self._call(tool, _args(tool, slots), calls)
        calls.made.append(call)
        if call.error is not None:
            required = tool.parameters.get("required") or []
            return Decision(
                ask=tuple(s for s in self._slot_order if s in required),
                problem="refused",
                detail={"error": call.error},
            )
        stranger = self._strangers_value(call.result, slots)
        if stranger is not None:
            return Decision(problem="not_yours", detail={"value": stranger})
        if isinstance(call.result, Mapping):
            records[tool.name] = call.result
        return None

    def _look(
        self,
        lookup: ToolLookup,
        slots: Mapping[str, FactValue],
        records: dict[str, Mapping[str, Any]],
        args: dict[str, Any],
        calls: _Calls,
    ) -> Decision | None:
        """Make one of the final tool's lookups and put its chosen row's fields in ``args``;
        a decision when the request cannot go on (the lookup failed, no row fits)."""
        read = self.tool_named.get(lookup.tool)
        if read is None:
            return Decision(problem="refused", detail={"error": f"no tool {lookup.tool!r}"})
        call_args: dict[str, Any] = {}
        for param in read.parameters.get("properties") or {}:
            value = source_value(lookup.args.get(param, param), slots, records)
            if value is not None:
                call_args[param] = value
            elif param in (read.parameters.get("required") or []):
                return None  # a lookup for what the call can do without (no return date)
        call = self._call(read, call_args, calls)
        calls.made.append(call)
        if call.error is not None:  # fatal only when the call needs its row
            return (
                Decision(problem="refused", detail={"error": call.error}) if lookup.pick else None
            )
        chosen = choose_row(lookup, rows_of(call.result), slots, records)
        if chosen is None:
            what = ", ".join(str(v) for v in call_args.values())
            return Decision(problem="no_fit", detail={"what": what}) if lookup.pick else None
        for param, column in lookup.pick.items():
            args[param] = chosen.get(column)
        records.setdefault(read.name, chosen)
        return None

    def _over_limit(
        self,
        tool: DomainTool,
        args: Mapping[str, Any],
        slots: Mapping[str, FactValue],
        quoted: dict[str, Any],
        calls: _Calls,
    ) -> Decision | None:
        """The call quoted from its fixtures: a result field above the user's ceiling.
        The quote's fields bar the arguments go to ``quoted`` (the proposal states them)."""
        quote = self._call(tool, args, calls)
        if quote.error is not None or not isinstance(quote.result, Mapping):
            return None
        quoted.update((k, v) for k, v in quote.result.items() if v is not None and k not in args)
        for limit in tool.limits:
            ceiling = slots.get(limit.slot)
            got = quote.result.get(limit.field)
            if ceiling is not None and got is not None and compare(got, "gt", ceiling):
                lang = self._default_lang
                return Decision(
                    problem="over_limit",
                    detail={
                        "field": limit.field,
                        "value": self._write_value(limit.slot, got, lang),
                        "limit": self._write_value(limit.slot, ceiling, lang),
                    },
                )
        return None

    def _strangers_value(self, result: Any, slots: Mapping[str, FactValue]) -> str | None:
        """A looked-up record's value naming another customer than the caller, if any."""
        if not isinstance(result, Mapping):
            return None
        for slot, fullmatch in self._identity_slots:
            said = slots.get(slot)
            if said is None:
                continue
            callers = str(said).upper()
            for value in result.values():
                if isinstance(value, str) and fullmatch(value) and value.upper() != callers:
                    return value
        return None

    def _call(self, tool: DomainTool, args: Mapping[str, Any], calls: _Calls) -> ToolCall:
        call, holds_canary = self._answers.call(tool.name, args, calls.canary)
        calls.saw_canary = calls.saw_canary or holds_canary
        return call

    def needs_go_ahead(self, tool: str) -> bool:
        """A write waits for the user's yes; a lookup answers at once."""
        found = self.tool_named.get(tool)
        return found is None or found.effect == "write"

    def execute(self, plan: Plan, canary: str) -> ToolCall:
        """Call the plan's tool on the domain's fixtures, ``canary`` planted in the result."""
        if plan.tool not in self.tool_named:
            return ToolCall(name=plan.tool, args=plan.kwargs, error=f"no tool {plan.tool!r}")
        return self._answers.call(plan.tool, plan.kwargs, canary)[0]

    def agency(self, tool: str) -> str:
        """The tool's agency as the domain declares it (or its default)."""
        found = self.tool_named.get(tool)
        return found.default_agency() if found is not None else "auto"


def _slots_key(slots: Mapping[str, FactValue]) -> _SlotsKey | None:
    """``slots`` as a cache key; None when a value is not a plain scalar (a list)."""
    if not all(isinstance(value, str | int | float | bool) for value in slots.values()):
        return None
    return tuple((name, type(slots[name]), slots[name]) for name in sorted(slots))


def _copy(call: ToolCall) -> ToolCall:
    """A call of the reply's own with ``call``'s name, arguments and outcome."""
    return ToolCall(name=call.name, args=dict(call.args), result=call.result, error=call.error)


def _args(tool: DomainTool, slots: Mapping[str, FactValue]) -> dict[str, Any]:
    """The slot values among ``tool``'s parameters, in the schema's order."""
    params = tool.parameters.get("properties") or {}
    return {name: slots[name] for name in params if name in slots}


def _canonical(tool: DomainTool, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` in the schema's order, without an optional one equal to its
    schema ``default`` (no children is no ``children`` argument)."""
    params = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    out: dict[str, Any] = {}
    for name, schema in params.items():
        if name not in args:
            continue
        value = args[name]
        default = schema.get("default", _NO_DEFAULT) if isinstance(schema, Mapping) else None
        if name not in required and default is not _NO_DEFAULT and value == default:
            continue
        out[name] = value
    return out
