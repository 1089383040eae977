"""Tool results an agent endpoint reports beside its tool calls, matched to them by id.

An endpoint that runs its own tools answers with the calls it made; the HTTP
adapters read each call's result (or error) from the response's documented
extension (``docs/http-targets.md``) and attach it here. An endpoint that reports
no results still works: its calls keep ``result=None`` and the reply's meta says
so (``meta["tool_results"] == NOT_REPORTED``), which the report counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simlab.core import NOT_REPORTED, TOOL_RESULTS_META, ToolCall, freeze

HTTP_TARGETS_DOC = "docs/http-targets.md"


@dataclass(frozen=True, slots=True)
class ReportedResult:
    """What one executed tool call returned, as the endpoint reported it."""

    result: Any = None
    error: str | None = None


def decode_result(value: Any) -> Any:
    """A reported result as data: a JSON object or array sent as a string is decoded
    (OpenAI tool messages and Anthropic tool_result blocks carry strings); any
    other value is kept as sent."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def attach_results(
    calls: Sequence[tuple[str | None, ToolCall]],
    results: Mapping[str, ReportedResult] | None,
) -> tuple[list[ToolCall], dict[str, Any]]:
    """Each call with its reported result, and the meta the reply carries.

    Args:
        calls: The reply's tool calls in order, each with the id the endpoint gave it.
        results: Call id to its result; None when the endpoint reported none.

    Returns:
        The calls, and ``{"tool_results": "not_reported"}`` when there were calls
        but no results (else an empty dict).

    Raises:
        ValueError: results were reported but do not match the calls one to one
            (a result for an unknown id, a call left without one, a repeated id).
    """
    if results is None:
        meta = {TOOL_RESULTS_META: NOT_REPORTED} if calls else {}
        return [call for _, call in calls], meta
    ids = [call_id for call_id, _ in calls]
    repeated = sorted({i for i in ids if i is not None and ids.count(i) > 1})
    if repeated:
        raise ValueError(f"tool call ids repeat: {repeated}; each call needs its own id")
    unknown = [i for i in results if i not in ids]
    if unknown:
        known = [i for i in ids if i is not None]
        raise ValueError(f"results for unknown tool call ids {unknown}; the calls' ids are {known}")
    missing = [f"{call.name} (id {call_id})" for call_id, call in calls if call_id not in results]
    if missing:
        raise ValueError(f"no result reported for {', '.join(missing)}")
    out = []
    for call_id, call in calls:
        got = results[call_id or ""]
        update: dict[str, Any] = {"result": freeze(got.result)}  # a copy is not validated
        if got.error is not None:
            update["error"] = got.error
        out.append(call.model_copy(update=update))
    return out, {}
