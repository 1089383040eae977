"""What a responder answers, text and native tool calls, and how ``tool_choice`` bends it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from simlab.testing._request import FakeRequest, FakeTool, FakeToolCall


@dataclass(frozen=True, slots=True)
class FakeReply:
    """A reply with native tool calls, for requests that send ``tools``.

    A responder may return a plain string (text only) or this. The server sends
    the calls as OpenAI ``tool_calls`` / Anthropic ``tool_use`` blocks / Responses
    ``function_call`` items, after ``tool_choice`` is applied (``chosen``).

    Attributes:
        text: What the assistant says besides the calls (often "").
        tool_calls: The calls, in order (their ``id`` is assigned by the server).
    """

    text: str = ""
    tool_calls: tuple[FakeToolCall, ...] = ()

    @classmethod
    def calling(cls, *calls: tuple[str, Mapping[str, Any]], text: str = "") -> FakeReply:
        """A reply that calls tools, e.g. ``FakeReply.calling(("search", {"q": "x"}))``."""
        return cls(text, tuple(FakeToolCall(name, args) for name, args in calls))


def schema_instance(schema: Mapping[str, Any]) -> Any:
    """A minimal value that validates against a (simple) JSON schema."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return schema_instance(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: schema_instance(sub) for name, sub in props.items()}
    defaults: dict[Any, Any] = {
        "string": "ok",
        "integer": 0,
        "number": 0,
        "boolean": True,
        "array": [],
        "null": None,
    }
    return defaults.get(kind)


def _forced_call(tool: FakeTool) -> FakeToolCall:
    args = schema_instance(tool.parameters)
    return FakeToolCall(tool.name, args if isinstance(args, dict) else {})


def chosen(request: FakeRequest, reply: str | FakeReply) -> FakeReply:
    """``reply`` as the request's tools and ``tool_choice`` allow it.

    No tools sent, or ``none``: the calls are dropped (a model cannot call what
    it was not given). ``required`` / ``any``: the reply's calls without its
    text (a forced turn holds calls only), or, if it had none, the first tool
    called with a minimal instance of its schema. A named tool: only calls of it
    are kept, and it is called that way if the reply had none. Parallel calls
    disallowed: only the first call is kept (what the real APIs then emit).
    """
    if isinstance(reply, str):
        reply = FakeReply(reply)
    choice = request.tool_choice
    if not request.tools or choice.mode == "none":
        return FakeReply(reply.text) if reply.tool_calls else reply
    calls = reply.tool_calls
    if choice.name is not None:
        calls = tuple(c for c in calls if c.name == choice.name)
    if not choice.parallel:
        calls = calls[:1]
    if choice.mode == "auto":
        return FakeReply(reply.text, calls)
    if not calls:
        tool = next((t for t in request.tools if t.name == choice.name), request.tools[0])
        calls = (_forced_call(tool),)
    return FakeReply("", calls)
