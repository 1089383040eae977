"""``AnthropicHttpAgent``: a target agent behind an Anthropic Messages-compatible endpoint.

Each user turn is one ``POST {url}/v1/messages`` with the conversation's texts
as ``messages`` (consecutive turns of one role merged, empty texts dropped, as
the Messages API wants them). The endpoint runs its own tools and answers with
the turn's ``content`` blocks in order: ``text``, each ``tool_use`` it executed,
and, as simlab's documented extension (``docs/http-targets.md``), the
``tool_result`` block that call got (``tool_use_id``, ``content``,
``is_error``) — the block the Messages API carries back in the next user
message. The reply's text is its text blocks joined; a response with
``tool_use`` blocks and no ``tool_result`` still works, its calls keeping no
result and the reply saying the results were not reported.

The API key is read from the named environment variable for every request and
sent as ``x-api-key``; it is never kept on an object, logged, put in a reply or
left in an error message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from simlab.agents._billing import MODEL_META, USAGE_META, TargetBilling
from simlab.agents._http import (
    EndpointAgent,
    HttpAgentError,
    HttpSession,
    check_key_env,
    endpoint_rules,
    redact,
)
from simlab.agents._tool_results import (
    HTTP_TARGETS_DOC,
    ReportedResult,
    attach_results,
    decode_result,
)
from simlab.contracts import SessionSetup
from simlab.core import AgentReply, Message, SessionContext, ToolCall
from simlab.llm import Budget, PriceTable, anthropic_usage
from simlab.spec import AnthropicHttpTargetSpec

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent (the Messages API's current version)."""
_EXCERPT_CHARS = 200


class AnthropicHttpAgent(EndpointAgent):
    """A target agent behind an Anthropic Messages-compatible endpoint.

    Args:
        url: Base URL; requests go to ``{url}/v1/messages``.
        model: Sent as ``model``.
        api_key_env: The variable holding the endpoint's key; None sends no key.
        max_tokens: Sent as ``max_tokens``.
        timeout_s: Per-request timeout.
        session: A shared ``HttpSession``; by default the agent opens its own,
            which ``aclose`` closes.

    Raises:
        HttpAgentConfigError: if ``api_key_env`` names an unset variable.
    """

    def __init__(
        self,
        url: str,
        model: str = "",
        api_key_env: str | None = None,
        max_tokens: int = 1024,
        timeout_s: float = 60.0,
        *,
        session: HttpSession | None = None,
        billing: TargetBilling | None = None,
    ) -> None:
        super().__init__(
            url.rstrip("/") + "/v1/messages", model, api_key_env, timeout_s, session, billing
        )
        self._max_tokens = max_tokens

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """POST the history and read the message's text, tool calls and their results."""
        key = self._key()
        headers = {"X-Simlab-Session": ctx.session_id, "anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        body = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "messages": messages_body(history),
        }
        raw = await self._post(body, headers, key)
        return self._bill(message_reply(raw, self._endpoint, secret=key), anthropic_usage)


def messages_body(history: Sequence[Message]) -> list[dict[str, str]]:
    """The history as Messages API ``messages``: roles alternate, no empty text."""
    out: list[dict[str, str]] = []
    for m in history:
        if not m.text.strip():
            continue  # a reply that was only tool calls: the API rejects empty text
        if out and out[-1]["role"] == m.role:
            out[-1]["content"] += "\n\n" + m.text
        else:
            out.append({"role": m.role, "content": m.text})
    return out


def message_reply(
    raw: str, where: str = "the endpoint", *, secret: str | None = None
) -> AgentReply:
    """An ``AgentReply`` from a Messages API response body (``secret``: the key sent,
    cut out of an error's excerpt of the body).

    Raises:
        HttpAgentError: if the body has no ``content`` list, or its ``tool_result``
            blocks do not match its ``tool_use`` blocks one to one.
    """
    try:
        data = json.loads(raw)
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list")
    except (ValueError, LookupError, TypeError, RecursionError) as e:
        raise HttpAgentError(
            f"{where} answered with no content list ({type(e).__name__}: {e}); "
            f"body starts {redact(raw, secret)[:_EXCERPT_CHARS]!r}"
        ) from None
    texts: list[str] = []
    calls: list[tuple[str | None, ToolCall]] = []
    results: dict[str, ReportedResult] | None = None
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            calls.append(_tool_use(block))
        elif kind == "tool_result":
            results = {} if results is None else results
            try:
                _add_result(results, block)
            except ValueError as e:
                raise HttpAgentError(f"{where}: {e} (see {HTTP_TARGETS_DOC})") from None
    try:
        tool_calls, meta = attach_results(calls, results)
    except ValueError as e:
        raise HttpAgentError(
            f"{where}: tool_result blocks do not match the tool_use blocks: {e} "
            f"(see {HTTP_TARGETS_DOC})"
        ) from None
    if isinstance(data.get("usage"), dict):
        meta[USAGE_META] = data["usage"]
        if isinstance(data.get("model"), str):
            meta[MODEL_META] = data["model"]  # what the usage is priced by
    text = "\n".join(t for t in texts if t)
    return AgentReply(text=text, tool_calls=tool_calls, meta=meta)


def _tool_use(block: dict[str, Any]) -> tuple[str | None, ToolCall]:
    call_id = block.get("id") if isinstance(block.get("id"), str) else None
    name = block.get("name")
    if not isinstance(name, str):
        return call_id, ToolCall(name="?", error=f"unreadable tool_use: {str(block)[:200]}")
    args = block.get("input", {})
    if not isinstance(args, dict):
        excerpt = str(args)[:_EXCERPT_CHARS]
        return call_id, ToolCall(name=name, error=f"input is not a JSON object: {excerpt}")
    return call_id, ToolCall(name=name, args=args)


def _add_result(results: dict[str, ReportedResult], block: dict[str, Any]) -> None:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        raise ValueError(f"a tool_result block has no tool_use_id: {str(block)[:_EXCERPT_CHARS]}")
    if call_id in results:
        raise ValueError(f"two tool_result blocks for tool_use_id {call_id!r}")
    value = _result_value(block.get("content"))
    if block.get("is_error") is True:
        results[call_id] = ReportedResult(error=str(value) if value not in (None, "") else "error")
    else:
        results[call_id] = ReportedResult(result=value)


def _result_value(content: Any) -> Any:
    """A tool_result's content as data: a string, or text blocks joined, JSON decoded."""
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and "text" in b]
        content = "".join(str(p) for p in parts)
    return decode_result(content)


class AnthropicHttpTargetFactory:
    """Makes an ``AnthropicHttpAgent`` per session, all sharing one aiohttp session.

    Call ``aclose`` when the run ends.
    """

    def __init__(
        self,
        spec: AnthropicHttpTargetSpec,
        max_body_bytes: int | None = None,
        prices: PriceTable | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.spec = spec
        self._prices = prices or PriceTable()
        self._budget = budget
        self._session = HttpSession(endpoint_rules(spec.redirect_hosts, max_body_bytes))
        check_key_env(spec.api_key_env)  # fail at set-up, not in every session

    def __call__(self, setup: SessionSetup) -> AnthropicHttpAgent:
        """A fresh agent for one session."""
        s = self.spec
        return AnthropicHttpAgent(
            s.url, s.model, s.api_key_env, s.max_tokens, s.timeout_s, session=self._session,
            billing=TargetBilling(setup.meter, self._prices, self._budget),
        )  # fmt: skip

    async def aclose(self) -> None:
        """Close the shared session."""
        await self._session.aclose()


def anthropic_http_target_factory(
    spec: AnthropicHttpTargetSpec,
    max_body_bytes: int | None = None,
    prices: PriceTable | None = None,
    budget: Budget | None = None,
) -> AnthropicHttpTargetFactory:
    """A per-session target factory for a Messages endpoint; ``aclose()`` it after the run
    (``max_body_bytes``, ``prices``, ``budget``: as ``http_target_factory``'s)."""
    return AnthropicHttpTargetFactory(spec, max_body_bytes, prices, budget)
