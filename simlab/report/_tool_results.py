"""How many of the target's tool calls came without their results (an endpoint that
does not report them), so a report can say why checks on tool results cannot pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from simlab.core import tool_call_counts
from simlab.store import TOOL_CALL_COUNTS_META, SessionRecord


def tool_results_section(records: Iterable[SessionRecord]) -> dict[str, Any]:
    """Tool calls, those whose result the target did not report, and their sessions.

    Counted over every session, graded or not, from each reply's
    ``meta["tool_results"]`` (set by the HTTP adapters).
    """
    calls = unreported = 0
    sessions: list[str] = []
    for r in records:
        # a slim record (no transcript) carries its counts
        counted = r.meta.get(TOOL_CALL_COUNTS_META)
        made, missing = counted if counted else tool_call_counts(r.transcript)
        calls += made
        unreported += missing
        if missing:
            sessions.append(r.key.id)
    return {
        "calls": calls,
        "unreported_calls": unreported,
        "unreported_sessions": len(sessions),
        "examples": sorted(sessions)[:3],
    }
