"""OpenTelemetry GenAI spans (OTLP JSON) into conversations.

Each semantic-convention generation is read into OpenAI-style message dicts:

* 1.37+: span attributes ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  (messages of typed ``parts``) and ``gen_ai.system_instructions``;
* 1.28-1.36: span events ``gen_ai.{system,user,assistant,tool}.message`` and
  ``gen_ai.choice``;
* earlier: events ``gen_ai.content.prompt`` / ``gen_ai.content.completion``
  holding ``gen_ai.prompt`` / ``gen_ai.completion`` JSON, or indexed attributes
  ``gen_ai.prompt.0.role``, ``gen_ai.completion.0.content``...

Spans group into conversations by ``gen_ai.conversation.id`` (or trace id).
Chat spans usually resend the whole history, so a span whose messages extend
what is known replaces it; one that does not is appended (incremental logs).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from simlab.replay._log import ImportRecordError, kind_of
from simlab.replay._record_shape import decode_embedded
from simlab.replay._source import ImportProblem, SourceRecord

CONVERSATION_ID = "gen_ai.conversation.id"
_INDEXED = re.compile(r"^gen_ai\.(prompt|completion)\.(\d+)\.(.+)$")
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


@dataclass(slots=True)
class OtelConversation:
    """The spans of one conversation, merged."""

    location: str
    fields: dict[str, Any] = field(default_factory=dict)  # attributes, earliest span first
    messages: list[dict[str, Any]] = field(default_factory=list)
    start: int = 0


def any_value(v: Any) -> Any:
    """An OTLP ``AnyValue`` as plain JSON data.

    Raises:
        ImportRecordError: An ``intValue`` or ``doubleValue`` that is no number, or
            an ``arrayValue``/``kvlistValue`` without a ``values`` list.
    """
    if not isinstance(v, dict):
        return v
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return _number(v["intValue"], int, "intValue")  # int64 is a JSON string in OTLP
    if "doubleValue" in v:
        return _number(v["doubleValue"], float, "doubleValue")
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "arrayValue" in v:
        return [any_value(x) for x in _values(v["arrayValue"], "arrayValue")]
    if "kvlistValue" in v:
        return attributes(_values(v["kvlistValue"], "kvlistValue"))
    return None


def _number(raw: Any, kind: type[int] | type[float], name: str) -> int | float:
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise ImportRecordError(f"{name} must be a number, got {kind_of(raw)}")
    try:
        return kind(raw)
    except (ValueError, OverflowError):
        shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:37] + "..."
        raise ImportRecordError(f"{name} {shown} is not a number") from None


def _values(holder: Any, name: str) -> list[Any]:
    values = holder.get("values", []) if isinstance(holder, dict) else None
    if not isinstance(values, list):
        raise ImportRecordError(f"{name} must be an object with a 'values' list")
    return values


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP ``[{key, value}]`` attributes as a dict (entries without a string key are skipped)."""
    if not isinstance(raw, list):
        return {}
    return {
        a["key"]: any_value(a.get("value"))
        for a in raw
        if isinstance(a, dict) and isinstance(a.get("key"), str)
    }


def otel_conversations(
    records: list[SourceRecord], group_by: str
) -> tuple[list[OtelConversation], list[ImportProblem]]:
    """Group every span of every OTLP record into conversations, in start order."""
    groups: dict[str, OtelConversation] = {}
    spans: dict[str, list[tuple[int, dict[str, Any], list[dict[str, Any]]]]] = {}
    problems: list[ImportProblem] = []
    for record in records:
        try:
            found = list(_spans(record.data))
        except ImportRecordError as e:
            problems.append(ImportProblem(record.location, str(e)))
            continue
        for where, resource, span in found:
            try:
                trace = span.get("traceId")
                if not isinstance(trace, str) or not trace:
                    raise ImportRecordError("the span has no traceId")
                attrs = attributes(span.get("attributes"))
                events = span.get("events") or []
                if not isinstance(events, list):
                    raise ImportRecordError(f"events must be a list, got {kind_of(events)}")
                messages = span_messages(attrs, events)
                start = _start(span.get("startTimeUnixNano"))
            except ImportRecordError as e:
                problems.append(ImportProblem(f"{record.location} ({where})", str(e)))
                continue
            except (ValueError, TypeError, AttributeError, KeyError) as e:
                why = f"not a GenAI span this importer can read ({type(e).__name__}: {e})"
                problems.append(ImportProblem(f"{record.location} ({where})", why))
                continue
            conv_id = attrs.get(CONVERSATION_ID) if group_by == "conversation" else None
            key = f"conversation {conv_id}" if conv_id else f"trace {trace}"
            conv = groups.setdefault(
                key, OtelConversation(f"{record.location} ({key})", start=start)
            )
            conv.start = min(conv.start, start)
            spans.setdefault(key, []).append((start, {**resource, **attrs}, messages))
    for key, conv in groups.items():
        for _, attrs, messages in sorted(spans[key], key=lambda s: s[0]):
            for name, value in attrs.items():
                conv.fields.setdefault(name, value)
            conv.messages = _merge(conv.messages, messages)
    return sorted(groups.values(), key=lambda c: c.start), problems


def _start(raw: Any) -> int:
    """A span's ``startTimeUnixNano`` (a JSON string or number in OTLP); 0 when absent."""
    if raw is None or raw == "":
        return 0
    return int(_number(raw, int, "startTimeUnixNano"))


def _spans(data: Any) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans"), list):
        raise ImportRecordError("not an OTLP trace export: no 'resourceSpans' list")
    for r, rs in enumerate(data["resourceSpans"]):
        where = f"resourceSpans[{r}]"
        if not isinstance(rs, dict):
            raise ImportRecordError(f"{where} must be an object, got {kind_of(rs)}")
        res = rs.get("resource") or {}
        resource = attributes(res.get("attributes") if isinstance(res, dict) else None)
        for s, ss in enumerate(_list_at(rs, ("scopeSpans", "instrumentationLibrarySpans"), where)):
            if not isinstance(ss, dict):
                raise ImportRecordError(f"{where}.scopeSpans[{s}] must be an object")
            for i, span in enumerate(_list_at(ss, ("spans",), f"{where}.scopeSpans[{s}]")):
                if not isinstance(span, dict):
                    raise ImportRecordError(f"{where}.scopeSpans[{s}].spans[{i}] is no object")
                yield f"{where}.scopeSpans[{s}].spans[{i}]", resource, span


def _list_at(holder: dict[str, Any], names: tuple[str, ...], where: str) -> list[Any]:
    value: Any = next((holder[n] for n in names if holder.get(n)), [])
    if not isinstance(value, list):
        raise ImportRecordError(f"{where}.{names[0]} must be a list, got {kind_of(value)}")
    return value


def span_messages(attrs: dict[str, Any], events: list[Any]) -> list[dict[str, Any]]:
    """One span's messages (input then output) as OpenAI-style dicts."""
    if "gen_ai.input.messages" in attrs or "gen_ai.output.messages" in attrs:
        out = []
        if "gen_ai.system_instructions" in attrs:
            out.append(
                {
                    "role": "system",
                    "content": _parts_text(_json(attrs["gen_ai.system_instructions"])),
                }
            )
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            out.extend(m for msg in _list(_json(attrs.get(key, []))) for m in _from_parts(msg))
        return out
    evented = [e for e in events if isinstance(e, dict)]
    names = {e.get("name") for e in evented}
    if names & {*_EVENT_ROLES, "gen_ai.choice"}:
        return [m for e in evented for m in _from_event(e)]
    if names & {"gen_ai.content.prompt", "gen_ai.content.completion"}:
        out = []
        for e in evented:
            a = attributes(e.get("attributes"))
            for key in ("gen_ai.prompt", "gen_ai.completion"):
                if key in a:
                    out.extend(_legacy_list(_json(a[key])))
        return out
    return _indexed(attrs)


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return decode_embedded(value)
        except json.JSONDecodeError:
            return value
        except ValueError as e:
            raise ImportRecordError(f"an attribute's JSON {e}") from None
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ImportRecordError(f"GenAI messages must be a JSON list, got {kind_of(value)}")
    return value


def _parts_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(p.get("content", "")) for p in value if isinstance(p, dict))
    return ""


def _from_parts(msg: Any) -> list[dict[str, Any]]:
    if not isinstance(msg, dict):
        raise ImportRecordError(f"a GenAI message must be an object, got {kind_of(msg)}")
    role = msg.get("role")
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in msg.get("parts") or []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            texts.append(str(part.get("content", "")))
        elif kind == "tool_call":
            calls.append(_openai_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind == "tool_call_response":
            response = part.get("response")
            content = response if isinstance(response, str) else json.dumps(response)
            results.append({"role": "tool", "tool_call_id": part.get("id"), "content": content})
    if results:
        return results
    out: dict[str, Any] = {"role": role, "content": "\n".join(texts)}
    if calls:
        out["tool_calls"] = calls
    return [out]


def _openai_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def _from_event(event: dict[str, Any]) -> list[dict[str, Any]]:
    a = attributes(event.get("attributes"))
    name = event.get("name")
    if name == "gen_ai.choice":
        message = _json(a.get("message", {}))
        if not isinstance(message, dict):
            return []
        return [_event_message(message.get("role") or "assistant", message)]
    role = _EVENT_ROLES.get(str(name))
    if role is None:
        return []
    body = _json(a.get("gen_ai.event.content", "")) if "gen_ai.event.content" in a else a
    return [_event_message(role, body if isinstance(body, dict) else {"content": body})]


def _event_message(role: str, body: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": body.get("role", role), "content": _text(body.get("content"))}
    if role == "tool":
        out["tool_call_id"] = body.get("id") or body.get("tool_call_id")
    calls = _json(body.get("tool_calls"))
    if isinstance(calls, list) and calls:
        out["tool_calls"] = [
            _openai_call(
                c.get("id"),
                (c.get("function") or {}).get("name"),
                (c.get("function") or {}).get("arguments"),
            )
            for c in calls
            if isinstance(c, dict)
        ]
    return out


def _text(content: Any) -> Any:
    if content is None or isinstance(content, str | list):
        return content
    return json.dumps(content)


def _legacy_list(value: Any) -> list[dict[str, Any]]:
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("message"), dict):
            item = item["message"]  # a completion choice
        if isinstance(item, dict):
            out.append(
                {
                    k: v
                    for k, v in item.items()
                    if k in ("role", "content", "tool_calls", "tool_call_id")
                }
                | {"role": item.get("role", "assistant")}
            )
        elif isinstance(item, str):
            out.append({"role": "assistant", "content": item})
    return out


def _indexed(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _INDEXED.match(key)
        if m is None:
            continue
        side = 0 if m[1] == "prompt" else 1
        msg = found.setdefault((side, int(m[2])), {"role": "user" if side == 0 else "assistant"})
        rest = m[3]
        if rest in ("role", "content", "tool_call_id"):
            msg[rest] = value
        elif rest.startswith("tool_calls."):
            _, j, prop = rest.split(".", 2)
            calls = msg.setdefault("_calls", {})
            calls.setdefault(int(j), {})[prop] = value
    out = []
    for place in sorted(found):
        msg = found[place]
        calls = msg.pop("_calls", {})
        if calls:
            msg["tool_calls"] = [
                _openai_call(c.get("id"), c.get("name"), c.get("arguments"))
                for _, c in sorted(calls.items())
            ]
        out.append(msg)
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("role") == b.get("role") and a.get("content") == b.get("content")


def _merge(known: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not new:
        return known
    if len(new) >= len(known) and all(_same(x, y) for x, y in zip(known, new, strict=False)):
        return new  # the span resent the whole history and added to it
    if len(known) > len(new) and all(_same(x, y) for x, y in zip(new, known, strict=False)):
        return known
    # incremental logging: skip what repeats the end of what is known
    overlap = 0
    for n in range(min(len(known), len(new)), 0, -1):
        if all(_same(x, y) for x, y in zip(known[-n:], new[:n], strict=True)):
            overlap = n
            break
    return known + new[overlap:]
