"""One check per goal constraint: does the final action honour what the user last said?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simlab.core import Check, StatedFact, ToolCall, Transcript, stated_facts
from simlab.graders._action import _holds, final_action
from simlab.graders._shared import new_check, own
from simlab.graders._written import written
from simlab.spec import Constraint, Goal

CONSTRAINT_PREFIX = "constraint:"
"""Constraint checks are named ``constraint:<fact_id>``."""

NO_FINAL_ACTION = "no final action"

# (shown when satisfied, shown when violated) per constraint op
_OP_SIGNS: dict[str, tuple[str, str]] = {"eq": ("==", "!="), "le": ("<=", ">"), "ge": (">=", "<")}


def constraint_checks(goal: Goal, transcript: Transcript) -> dict[str, Check]:
    """Judge the final action against every constraint the user stated.

    Each constraint is compared, with ``satisfies``, to the latest value the
    user stated for its fact (a mind change overrides the earlier value). The
    final action is the last successful ``goal.final_tool`` call.

    A constraint whose fact the user never stated is left out, not failed: the
    agent could not have known it, and a failure there would blame the agent
    for the simulator's plan. With no final action, every judged constraint
    fails with detail ``"no final action"``.

    Checks are named ``constraint:<fact_id>``; when a goal puts more than one
    constraint on the same fact, those are named ``constraint:<fact_id>:<field>``
    so none is lost.

    Args:
        goal: The goal whose ``constraints`` are judged.
        transcript: A finished session.

    Returns:
        Check name to check, each named; ``turn`` is the user turn the value was stated in.
    """
    checks = judge_constraints(goal, stated_facts(transcript), final_action(goal, transcript))
    return {name: own(check, name) for name, check in checks.items()}


def judge_constraints(
    goal: Goal,
    stated: Mapping[str, StatedFact],
    action: tuple[int, ToolCall] | None,
) -> dict[str, Check]:
    """``constraint_checks`` from already-computed stated facts and final action."""
    tool = goal.final_tool
    args: Mapping[str, Any] = {}
    result: Mapping[str, Any] = {}
    if action is not None:  # the action's view (``action_view``) read where it is: no dict
        args, found = action[1].args, action[1].result
        if type(found) is dict or isinstance(found, Mapping):
            result = found
    checks: dict[str, Check] = {}
    for c, name in zip(goal.constraints, _names(goal.constraints), strict=True):
        fact_id, field, op = c.fact, c.field, c.op
        fact = stated.get(fact_id)
        if fact is None:
            continue
        value, turn = fact.value, fact.turn
        if action is None:
            checks[name] = new_check(name, False, NO_FINAL_ACTION, turn)
            continue
        # the result's field overlays the argument of the same name
        got = result[field] if field in result else args.get(field, _ABSENT)
        checks[name] = _constraint_check(name, fact_id, field, op, tool, value, turn, got)
    return checks


def _constraint_check(
    name: str, fact: str, field: str, op: str, tool: str, wanted: object, turn: int, got: object
) -> Check:
    """One constraint's check: the final action's ``field`` is ``got`` (``_ABSENT``: it has
    no such field), the user stated ``wanted`` for ``fact`` in ``turn``."""
    source = f"({fact} stated in turn {turn})"
    if got is _ABSENT:
        detail = f"{tool} has no {field}, wanted {_OP_SIGNS[op][0]} {written(wanted)} {source}"
        return new_check(name, False, detail, turn)
    ok = _holds(op, got, wanted)
    sign = _OP_SIGNS[op][0 if ok else 1]
    return new_check(name, ok, f"{field} {written(got)} {sign} {written(wanted)} {source}", turn)


_ABSENT = object()
"""A final action without the constrained field."""


def _names(constraints: Sequence[Constraint]) -> list[str]:
    """The constraints' check names, in their order."""
    counts: dict[str, int] = {}
    for c in constraints:
        counts[c.fact] = counts.get(c.fact, 0) + 1
    return [
        f"{CONSTRAINT_PREFIX}{c.fact}" + (f":{c.field}" if counts[c.fact] > 1 else "")
        for c in constraints
    ]
