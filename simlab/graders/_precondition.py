"""Preconditions graded: the lookups a domain says must come before a tool.

A domain tool's ``requires: [verify_identity, get_transaction]`` is the domain's rule
that an agent calls those tools, successfully and in that order, before it calls this
one (verify the caller before any write; look a record up before changing it). The
``precondition`` check holds every call of such a tool to it: it fails at the first
call made without its required calls before it, naming the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from simlab.contracts import GraderResult, GradingContext
from simlab.core import Check, ToolCall
from simlab.spec import Domain

PRECONDITION = "precondition"
"""The check's name."""


def missing_precondition(required: Sequence[str], before: Sequence[ToolCall]) -> str | None:
    """The first of ``required`` not called successfully, in order, among ``before``;
    None when every one was (each after the one before it)."""
    position = 0
    for tool in required:
        while position < len(before) and not _succeeded(before[position], tool):
            position += 1
        if position == len(before):
            return tool
        position += 1
    return None


def _succeeded(call: ToolCall, tool: str) -> bool:
    return call.name == tool and call.error is None


def precondition_check(domain: Domain, calls: Sequence[tuple[int, ToolCall]]) -> Check | None:
    """The ``precondition`` check of a session's tool calls (``(turn, call)`` in order);
    None when no call is of a tool that requires others (nothing to hold to a rule)."""
    held: list[str] = []
    for i, (turn, call) in enumerate(calls):
        spec = domain.tool(call.name)
        if spec is None or not spec.requires:
            continue
        held.append(call.name)
        missing = missing_precondition(spec.requires, [c for _, c in calls[:i]])
        if missing is not None:
            order = " then ".join(spec.requires)
            return Check(
                name=PRECONDITION,
                passed=False,
                detail=(
                    f"{call.name} was called before a successful {missing} (the domain "
                    f"requires {order} first)"
                ),
                turn=turn,
            )
    if not held:
        return None
    tools = ", ".join(dict.fromkeys(held))
    return Check(
        name=PRECONDITION, passed=True, detail=f"every call of {tools} came after its lookups"
    )


@dataclass(frozen=True)
class Precondition:
    """Each call of a tool the domain gives ``requires:`` comes after those tools'
    successful calls, in order. Applies when the run knows the domain and the session
    calls such a tool."""

    name: str = PRECONDITION

    def grade(self, ctx: GradingContext) -> GraderResult:
        if ctx.domain is None:
            return None
        return precondition_check(ctx.domain, ctx.tool_calls)
