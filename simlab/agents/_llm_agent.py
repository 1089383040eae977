"""``LLMAgent``: a target agent made of a model, a YAML spec and canned tools.

Each user turn is one or more model calls: the model answers in JSON with its
text and tool calls; simlab runs the calls against the spec's fixtures, feeds
the results back and asks again, up to ``max_tool_rounds`` rounds, then
returns every call it made (parallel calls included) with the final text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simlab.agents._llm_context import (
    assistant_json,
    build_messages,
    system_prompt,
    tool_results,
)
from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import (
    AgentCapabilities,
    AgentReply,
    ContextInfo,
    Message,
    SessionContext,
    ToolCall,
)
from simlab.llm import LLM, LLMMessage, LLMRequest, SessionMeter, metered_complete
from simlab.spec import AgentSpec

_CORRECTION = (
    "Your last answer could not be read ({problem}). Answer again with only the JSON "
    'object, {{"text": "...", "tool_calls": [...]}}, and nothing around it.'
)


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A model answer in the reply format: text and the calls it asks for, in order."""

    text: str
    calls: list[tuple[str, Any]]  # (tool name, args as sent: not yet validated)


def parse_reply(raw: str) -> ParsedReply | str:
    """Read a model answer; a string return says why it is not in the reply format.

    Tolerates a Markdown code fence and prose around the object (models add
    them); the first JSON object in the answer is the one read.
    """
    start = raw.find("{")
    if start == -1:
        return "no JSON object"
    try:
        value, _ = json.JSONDecoder().raw_decode(raw, start)
    except json.JSONDecodeError as e:
        return f"invalid JSON: {e.msg} at character {e.pos}"
    if not isinstance(value, dict):
        return "the answer is not a JSON object"
    text = value.get("text", "")
    if not isinstance(text, str):
        return "`text` must be a string"
    raw_calls = value.get("tool_calls")
    raw_calls = [] if raw_calls is None else raw_calls
    if not isinstance(raw_calls, list):
        return "`tool_calls` must be a list"
    calls: list[tuple[str, Any]] = []
    for i, call in enumerate(raw_calls):
        name = call.get("name") if isinstance(call, dict) else None
        if not isinstance(name, str) or not name:
            return f"tool_calls[{i}] needs a string `name`"
        calls.append((name, call.get("args", call.get("arguments", {}))))
    return ParsedReply(text, calls)


class LLMAgent:
    """A target agent driven by an LLM, with tools answered from fixtures.

    simlab builds the model's context, so every counterfactual knob is honoured:
    ``context_window`` (user turns kept), ``constraint_recap`` and
    ``instruction_reminder`` (sections appended to the current user message).
    A knob left at its neutral value keeps the spec's own setting.

    Args:
        spec: The agent's declaration.
        llm: The model client (shared across sessions).
        meter: The session's meter; every call is reported under role ``agent``.
    """

    capabilities = AgentCapabilities(
        context_window=True, constraint_recap=True, instruction_reminder=True
    )

    def __init__(self, spec: AgentSpec, llm: LLM, meter: SessionMeter | None = None) -> None:
        self._spec = spec
        self._llm = llm
        self._meter = meter if meter is not None else SessionMeter()
        self._system = system_prompt(spec)
        self._tools = {t.name: t for t in spec.tools}

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """Answer the last user message, running the tool rounds the model asks for."""
        spec, knobs = self._spec, ctx.knobs
        keep = spec.context_window if knobs.context_window is None else knobs.context_window
        messages, seen = build_messages(
            history,
            spec,
            keep_turns=keep,
            recap=spec.constraint_recap or knobs.constraint_recap,
            reminder=spec.instruction_reminder or knobs.instruction_reminder,
        )
        calls: list[ToolCall] = []
        format_errors = rounds = 0
        retried = False  # whether the answer being read is already a corrected one
        text = ""
        while True:
            raw = await self._complete(messages, ctx.seed)
            parsed = parse_reply(raw)
            if isinstance(parsed, str):
                format_errors += 1
                if retried:  # the one retry failed too: the raw text is the reply
                    text = raw.strip()
                    break
                retried = True
                messages += [
                    LLMMessage(role="assistant", content=raw),
                    LLMMessage(role="user", content=_CORRECTION.format(problem=parsed)),
                ]
                continue
            retried = False
            text = parsed.text or text
            if not parsed.calls:
                break
            if rounds >= spec.max_tool_rounds:
                # Recorded, never dropped: the model asked, simlab refused.
                limit = f"not executed: at most {spec.max_tool_rounds} tool rounds per turn"
                calls += [_refused(name, args, limit) for name, args in parsed.calls]
                break
            executed = [self._execute(name, args) for name, args in parsed.calls]
            calls += executed
            rounds += 1
            messages += [
                LLMMessage(role="assistant", content=assistant_json(parsed.text, executed)),
                LLMMessage(role="user", content=tool_results(executed)),
            ]
        return AgentReply(
            text=text,
            tool_calls=calls,
            context=ContextInfo(seen_user_turns=seen),
            meta={"format_errors": format_errors, "tool_rounds": rounds},
        )

    def _execute(self, name: str, args: Any) -> ToolCall:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return _refused(name, args, f"unknown tool {name!r}; tools: {known}")
        return tool.call(args)

    async def _complete(self, messages: list[LLMMessage], seed: int) -> str:
        req = LLMRequest(
            messages=tuple(messages),
            system=self._system,
            seed=seed,
            json_output=True,
            role="agent",
        )
        return (await metered_complete(self._llm, req, self._meter)).text


def _refused(name: str, args: Any, error: str) -> ToolCall:
    return ToolCall(name=name, args=args if isinstance(args, dict) else {}, error=error)


def llm_target_factory(spec: AgentSpec, llm: LLM) -> Callable[[SessionSetup], TargetAgent]:
    """A per-session factory of ``LLMAgent``s sharing ``llm``, each with its session's meter."""

    def make(setup: SessionSetup) -> TargetAgent:
        return LLMAgent(spec, llm, setup.meter)

    return make
