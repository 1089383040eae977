"""AnthropicHttpAgent on a loopback server: Messages requests out; text, tool_use and
tool_result blocks in; the key sent as x-api-key and kept out of everything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from simlab.agents import (
    AnthropicHttpAgent,
    HttpAgent,
    HttpAgentConfigError,
    HttpAgentError,
    TargetBilling,
    anthropic_http_target_factory,
    message_reply,
    messages_body,
)
from simlab.core import Knobs, Message, SessionContext, ToolCall
from simlab.llm import PriceTable, SessionMeter
from simlab.spec import AnthropicHttpTargetSpec, SpecError, load_suite
from simlab.testing import FakeProvider, scripted
from tests.agents.loopback import serve

KEY = "sk-ant-test-0123456789abcdef"
CTX = SessionContext("p/g/full/0", 5, 2, Knobs())
HISTORY = [
    Message(role="user", text="Close ticket T-9"),
    Message(role="assistant", text="", tool_calls=[ToolCall(name="lookup")]),
    Message(role="user", text="Also, it is urgent"),
]
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "agent-1",
    "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"ticket": "T-9"}},
        {"type": "tool_result", "tool_use_id": "tu_1", "content": '{"status": "open"}'},
        {"type": "tool_use", "id": "tu_2", "name": "close", "input": {"ticket": "T-9"}},
        {
            "type": "tool_result",
            "tool_use_id": "tu_2",
            "content": [{"type": "text", "text": '{"receipt": "R-1"}'}],
        },
        {"type": "text", "text": "Closed: receipt R-1."},
    ],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 20, "output_tokens": 9},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_KEY", KEY)


@pytest.mark.anyio
@pytest.mark.parametrize(("model", "cost"), [("agent-1", (20 * 1.0 + 9 * 2.0) / 1e6), ("x", None)])
async def test_the_reported_usage_is_the_sessions_priced_by_the_answering_model(
    model: str, cost: float | None
) -> None:
    answer = {**MESSAGE, "model": model}
    meter = SessionMeter()
    prices = PriceTable.from_mapping({"agent-1": {"input": 1.0, "output": 2.0}})
    async with serve("/v1/messages", lambda *_: web.json_response(answer)) as (url, _):
        agent = AnthropicHttpAgent(url, "agent-1", billing=TargetBilling(meter, prices))
        try:
            await agent.reply(HISTORY, CTX)
            await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert (meter.usage.input_tokens, meter.usage.output_tokens, meter.calls) == (40, 18, 2)
    # priced by the model that answered ("x" has no price: unknown, not $0)
    assert meter.cost_usd == (None if cost is None else pytest.approx(2 * cost))


@pytest.mark.anyio
async def test_a_turn_is_one_messages_request_and_blocks_become_calls_with_results() -> None:
    async with serve("/v1/messages", lambda *_: web.json_response(MESSAGE)) as (url, seen):
        agent = AnthropicHttpAgent(url + "/", "agent-1", "AGENT_KEY", 300, 5.0)
        try:
            reply = await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert reply.text == "Let me look.\nClosed: receipt R-1."
    assert reply.tool_calls == (
        ToolCall(name="lookup", args={"ticket": "T-9"}, result={"status": "open"}),
        ToolCall(name="close", args={"ticket": "T-9"}, result={"receipt": "R-1"}),
    )
    assert reply.meta == {"usage": MESSAGE["usage"], "model": "agent-1"}
    assert seen.paths == ["/v1/messages"]
    # the tool-only reply's empty text is dropped, so the two user turns merge
    assert seen.bodies == [
        {
            "model": "agent-1",
            "max_tokens": 300,
            "messages": [{"role": "user", "content": "Close ticket T-9\n\nAlso, it is urgent"}],
        }
    ]
    headers = seen.headers[0]
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["X-Simlab-Session"] == "p/g/full/0"
    assert "Authorization" not in headers
    assert KEY not in reply.model_dump_json()
    assert KEY not in repr(agent.__dict__)


@pytest.mark.anyio
async def test_an_error_status_names_it_with_an_excerpt_and_never_the_key() -> None:
    def leaky(request: web.Request, _: dict[str, Any]) -> web.Response:
        sent = request.headers["x-api-key"]
        return web.Response(status=401, text=f"bad key {sent}; Bearer {sent}" + "x" * 500)

    async with serve("/v1/messages", leaky) as (url, _):
        agent = AnthropicHttpAgent(url, api_key_env="AGENT_KEY")
        try:
            with pytest.raises(HttpAgentError) as info:
                await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    message = str(info.value)
    assert message.startswith(f"POST {url}/v1/messages returned HTTP 401: bad key ***;")
    assert KEY not in message
    assert len(message) < 300


@pytest.mark.anyio
async def test_against_the_fake_providers_messages_endpoint() -> None:
    fake = FakeProvider(responder=scripted(["Your ticket is closed."]))
    async with fake.serve() as base_url:
        agent = AnthropicHttpAgent(base_url, "fake-agent", max_tokens=64)
        try:
            reply = await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert (reply.text, reply.tool_calls) == ("Your ticket is closed.", ())
    assert [m.text for m in fake.requests[0].messages] == ["Close ticket T-9\n\nAlso, it is urgent"]


def test_tool_use_without_results_keeps_no_result_and_says_so() -> None:
    body = {"content": [b for b in MESSAGE["content"] if b["type"] != "tool_result"]}  # type: ignore[index]
    reply = message_reply(json.dumps(body))
    assert [c.result for c in reply.tool_calls] == [None, None]
    assert reply.meta == {"tool_results": "not_reported"}


def test_an_error_result_fails_its_call() -> None:
    body = {
        "content": [
            {"type": "tool_use", "id": "a", "name": "close", "input": {}},
            {"type": "tool_result", "tool_use_id": "a", "content": "locked", "is_error": True},
        ]
    }
    (call,) = message_reply(json.dumps(body)).tool_calls
    assert (call.result, call.error) == (None, "locked")


@pytest.mark.parametrize(
    ("blocks", "problem"),
    [
        (
            [
                {"type": "tool_use", "id": "a", "name": "close", "input": {}},
                {"type": "tool_result", "tool_use_id": "b", "content": "x"},
            ],
            r"unknown tool call ids \['b'\]",
        ),
        (
            [
                {"type": "tool_use", "id": "a", "name": "close", "input": {}},
                {"type": "tool_use", "id": "c", "name": "lookup", "input": {}},
                {"type": "tool_result", "tool_use_id": "a", "content": "x"},
            ],
            r"no result reported for lookup \(id c\)",
        ),
        (
            [{"type": "tool_result", "content": "x"}],
            r"a tool_result block has no tool_use_id",
        ),
    ],
)
def test_results_that_do_not_match_are_an_agent_error(
    blocks: list[dict[str, Any]], problem: str
) -> None:
    with pytest.raises(HttpAgentError, match=problem) as info:
        message_reply(json.dumps({"content": blocks}))
    assert "docs/http-targets.md" in str(info.value)


def test_a_body_without_content_is_an_agent_error() -> None:
    with pytest.raises(HttpAgentError, match="no content list"):
        message_reply('{"type": "error"}')


def test_unreadable_tool_use_is_a_failed_call_not_a_crash() -> None:
    body = {"content": [{"type": "tool_use", "id": "a", "name": "close", "input": "nope"}]}
    (call,) = message_reply(json.dumps(body)).tool_calls
    assert call.error == "input is not a JSON object: nope"


def test_history_roles_alternate_and_empty_texts_are_dropped() -> None:
    history = [
        Message(role="user", text="a"),
        Message(role="assistant", text="b"),
        Message(role="assistant", text="  "),
        Message(role="user", text="c"),
    ]
    assert messages_body(history) == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ]


def test_an_unset_key_variable_fails_at_set_up() -> None:
    spec = AnthropicHttpTargetSpec(url="http://127.0.0.1:1", api_key_env="NOPE_KEY")
    with pytest.raises(HttpAgentConfigError, match=r"\$NOPE_KEY is not set"):
        anthropic_http_target_factory(spec)


def test_the_suite_reads_the_target_and_names_a_misspelt_field(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("target: {kind: anthropic_http, url: 'http://h', model: m, api_key_env: K}\n")
    target = load_suite(suite).target
    assert isinstance(target, AnthropicHttpTargetSpec)
    assert (target.url, target.model, target.api_key_env, target.max_tokens) == (
        "http://h",
        "m",
        "K",
        1024,
    )
    suite.write_text("target: {kind: anthropic_http, url: 'http://h', max_token: 5}\n")
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    assert "did you mean 'max_tokens'" in str(info.value)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("status", "body"),
    [
        # a 200 that is no completion, echoing the key: the error quotes the body
        (200, "proxy says: key=" + KEY + " is fine"),
        # the key straddling the excerpt's cut: no half of it may remain
        (502, "x" * 190 + KEY),
    ],
)
@pytest.mark.anyio
async def test_an_excerpt_of_the_body_never_carries_the_key(
    kind: str, status: int, body: str
) -> None:
    path = "/v1/messages" if kind == "anthropic" else "/v1/chat/completions"
    async with serve(path, lambda *_: web.Response(status=status, text=body)) as (url, _):
        agent = (
            AnthropicHttpAgent(url, api_key_env="AGENT_KEY")
            if kind == "anthropic"
            else HttpAgent(url + "/v1", api_key_env="AGENT_KEY")
        )
        try:
            with pytest.raises(HttpAgentError) as info:
                await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert KEY[:10] not in str(info.value)
    assert "***" in str(info.value)
