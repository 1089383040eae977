"""How economically and how resiliently the agent used its tools.

* ``tool_use``: the session's figures a record keeps (LCS against the goal's
  expected trajectory, the calls of repeats of the final action the user asked for,
  calls, redundant calls), for reports and ``compare``.
* ``efficiency`` grader: redundant calls and iterations (tool calls). A call is
  redundant when an identical call (same tool, same arguments) is made more than
  twice; each repeat after the first then counts (three identical calls: two
  redundant), so one retry is free and a loop is not.
* ``reflection`` grader: after a tool call fails, does the agent recover with a
  later successful call of the same tool? Not applicable when no call failed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from simlab.contracts import GraderResult, GradingContext
from simlab.core import Check, ToolCall, Transcript
from simlab.graders._trajectory import session_trajectory
from simlab.spec import Goal
from simlab.store import ToolUse

EFFICIENCY = "efficiency"
REFLECTION = "reflection"
MAX_ITERATIONS = 10
"""Tool calls a session may make before ``efficiency`` fails it (and the unit its credit
loses per redundant call)."""


def redundant_calls(calls: Sequence[ToolCall]) -> int:
    """Repeats of identical calls made more than twice (each repeat after the first)."""
    if len(calls) < 3:
        return 0
    names: dict[str, int] = {}  # only a tool called 3+ times can repeat a call
    for c in calls:
        names[c.name] = names.get(c.name, 0) + 1
    if max(names.values()) < 3:
        return 0
    counts: dict[object, int] = {}
    for c in calls:
        if names[c.name] > 2:
            signature = _signature(c)
            counts[signature] = counts.get(signature, 0) + 1
    return sum(n - 1 for n in counts.values() if n > 2)


def tool_use(
    goal: Goal, transcript: Transcript, calls: Sequence[tuple[int, ToolCall]] | None = None
) -> ToolUse:
    """The tool-call figures of a finished session against ``goal.expected_tools``
    (``session_trajectory``: the ``trajectory`` check's own); ``calls`` is
    ``transcript.tool_calls()`` when the caller has it already (``GradingContext``)."""
    turn_calls = transcript.tool_calls() if calls is None else calls
    names, metrics = session_trajectory(goal, transcript, turn_calls)
    redundant = redundant_calls([call for _, call in turn_calls])
    expected = len(goal.expected_tools)
    return ToolUse(
        expected=expected, calls=len(names), lcs=metrics.lcs, repeats=metrics.repeats,
        redundant=redundant,
    )  # fmt: skip


@dataclass(frozen=True)
class Efficiency:
    """Redundant calls and iterations: credit ``max(0, 1 - redundant / max_iterations)``;
    passes with no redundant call and at most ``max_iterations`` tool calls."""

    name: str = EFFICIENCY
    max_iterations: int = MAX_ITERATIONS

    def grade(self, ctx: GradingContext) -> GraderResult:
        calls = [call for _, call in ctx.tool_calls]
        redundant = redundant_calls(calls)
        credit = max(0.0, 1.0 - redundant / self.max_iterations)
        passed = redundant == 0 and len(calls) <= self.max_iterations
        detail = (
            f"{len(calls)} tool call(s) (at most {self.max_iterations}), "
            f"{redundant} redundant (an identical call made more than twice)"
        )
        return Check(name=EFFICIENCY, passed=passed, score=round(credit, 4), detail=detail)


@dataclass(frozen=True)
class Reflection:
    """Recovery from failed tool calls: each failed call followed by a later successful
    call of the same tool; credit is the share recovered. None when no call failed."""

    name: str = REFLECTION

    def grade(self, ctx: GradingContext) -> GraderResult:
        calls = ctx.tool_calls
        failed = [(i, turn, c) for i, (turn, c) in enumerate(calls) if c.error is not None]
        if not failed:
            return None
        recovered = [
            any(later.name == c.name and later.error is None for _, later in calls[i + 1 :])
            for i, _, c in failed
        ]
        unrecovered = [t for (_, t, _), ok in zip(failed, recovered, strict=True) if not ok]
        share = sum(recovered) / len(failed)
        return Check(
            name=REFLECTION,
            passed=all(recovered),
            score=round(share, 4),
            detail=f"{sum(recovered)} of {len(failed)} failed tool call(s) recovered by a "
            "later successful call of the same tool",
            turn=unrecovered[0] if unrecovered else None,
        )


_SCALARS = frozenset({str, int, bool, type(None)})


def _signature(call: ToolCall) -> object:
    """What makes two calls identical: the name and the arguments' JSON (sorted keys).

    Arguments of plain scalars (most calls) give a tuple equal exactly when their
    JSON is: each value with its type (``1``, ``1.0``, ``"1"`` and ``true`` differ;
    a float by its repr, as JSON writes it, so ``-0.0`` is not ``0.0`` and NaN is
    NaN); anything else gives the JSON itself, which never equals such a tuple.
    """
    args = call.args
    shown: list[tuple[str, type, object]] = []
    for k, v in args.items():
        kind = type(v)
        if type(k) is not str:
            break
        if kind is float:
            shown.append((k, kind, float.__repr__(v)))
        elif kind in _SCALARS:
            shown.append((k, kind, v))
        else:
            break
    else:
        return (call.name, *sorted(shown))
    return f"{call.name}\x1f{json.dumps(args, sort_keys=True, default=str)}"
