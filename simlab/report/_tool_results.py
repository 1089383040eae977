"""How many of the target's tool calls came without their results (an endpoint that
does not report them), so a report can say why checks on tool results cannot pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from simlab.agents import NOT_REPORTED, TOOL_RESULTS_META
from simlab.store import SessionRecord


def tool_results_section(records: Iterable[SessionRecord]) -> dict[str, Any]:
    """Tool calls, those whose result the target did not report, and their sessions.

    Counted over every session, graded or not, from each reply's
    ``meta["tool_results"]`` (set by the HTTP adapters).
    """
    calls = unreported = 0
    sessions: list[str] = []
    for r in records:
        missing = 0
        for turn in r.transcript.turns:
            reply = turn.agent
            if reply is None:
                continue
            calls += len(reply.tool_calls)
            if reply.meta.get(TOOL_RESULTS_META) == NOT_REPORTED:
                missing += len(reply.tool_calls)
        unreported += missing
        if missing:
            sessions.append(r.key.id)
    return {
        "calls": calls,
        "unreported_calls": unreported,
        "unreported_sessions": len(sessions),
        "examples": sorted(sessions)[:3],
    }
