"""One check per goal constraint: does the final action honour what the user last said?"""

from __future__ import annotations

from collections.abc import Mapping

from simlab.core import Check, StatedFact, ToolCall, Transcript, stated_facts
from simlab.graders._action import action_view, final_action, satisfies
from simlab.graders._written import written
from simlab.spec import Constraint, Goal, PerObject

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
    return judge_constraints(goal, stated_facts(transcript), final_action(goal, transcript))


def judge_constraints(
    goal: Goal,
    stated: Mapping[str, StatedFact],
    action: tuple[int, ToolCall] | None,
) -> dict[str, Check]:
    """``constraint_checks`` from already-computed stated facts and final action."""
    view = action_view(action[1]) if action is not None else None
    tool = goal.final_tool
    checks: dict[str, Check] = {}
    for constraint, name in zip(goal.constraints, _names_of(goal), strict=True):
        fact = stated.get(constraint.fact)
        if fact is None:
            continue
        if view is None:
            checks[name] = Check(name=name, passed=False, detail=NO_FINAL_ACTION, turn=fact.turn)
            continue
        ok = satisfies(constraint, view, fact.value)
        checks[name] = Check(
            name=name,
            passed=ok,
            detail=_detail(constraint, fact, view, ok, tool),
            turn=fact.turn,
        )
    return checks


def _names(constraints: list[Constraint]) -> list[str]:
    counts: dict[str, int] = {}
    for c in constraints:
        counts[c.fact] = counts.get(c.fact, 0) + 1
    return [
        f"{CONSTRAINT_PREFIX}{c.fact}" + (f":{c.field}" if counts[c.fact] > 1 else "")
        for c in constraints
    ]


_names_of: PerObject[Goal, list[str]] = PerObject(lambda goal: _names(goal.constraints), most=4096)
"""A goal's constraint check names, in the order of its constraints."""


def _detail(
    constraint: Constraint, fact: StatedFact, view: Mapping[str, object], ok: bool, tool: str
) -> str:
    sign = _OP_SIGNS[constraint.op][0 if ok else 1]
    source = f"({constraint.fact} stated in turn {fact.turn})"
    wanted = written(fact.value)
    if constraint.field not in view:
        want_sign = _OP_SIGNS[constraint.op][0]
        return f"{tool} has no {constraint.field}, wanted {want_sign} {wanted} {source}"
    return f"{constraint.field} {written(view[constraint.field])} {sign} {wanted} {source}"
