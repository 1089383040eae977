"""An OpenAI-style endpoint reports each tool call's result through ``simlab_tool_results``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp import web

from simlab.agents import HttpAgent, HttpAgentError, completion_reply
from simlab.core import Knobs, Message, SessionContext, ToolCall
from tests.agents.loopback import serve

CTX = SessionContext("p/g/full/0", 7, 1, Knobs())
HISTORY = [Message(role="user", text="Close ticket T-9 please")]


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _body(message: dict[str, Any]) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", **message}}]})


CALLS = [_call("c1", "lookup", {"ticket": "T-9"}), _call("c2", "close", {"ticket": "T-9"})]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_results_reach_each_call_by_id_over_http() -> None:
    results = [
        # out of order, one result as a JSON string (as a tool message carries it)
        {"tool_call_id": "c2", "result": '{"closed": true, "receipt": "R-1"}'},
        {"tool_call_id": "c1", "result": {"status": "open"}, "error": None},
    ]
    message = {"content": "Closed, receipt R-1.", "tool_calls": CALLS}
    message["simlab_tool_results"] = results

    def handler(_: web.Request, __: dict[str, Any]) -> web.Response:
        return web.json_response({"choices": [{"message": {"role": "assistant", **message}}]})

    async with serve("/v1/chat/completions", handler) as (url, _):
        agent = HttpAgent(url + "/v1")
        try:
            reply = await agent.reply(HISTORY, CTX)
        finally:
            await agent.aclose()
    assert reply.tool_calls == (
        ToolCall(name="lookup", args={"ticket": "T-9"}, result={"status": "open"}),
        ToolCall(name="close", args={"ticket": "T-9"}, result={"closed": True, "receipt": "R-1"}),
    )
    assert "tool_results" not in reply.meta


def test_a_reported_error_fails_the_call() -> None:
    body = _body(
        {
            "content": "Sorry, that failed.",
            "tool_calls": CALLS[1:],
            "simlab_tool_results": [{"tool_call_id": "c2", "error": "ticket is locked"}],
        }
    )
    (call,) = completion_reply(body).tool_calls
    assert (call.result, call.error) == (None, "ticket is locked")


def test_a_plain_string_result_stays_a_string() -> None:
    body = _body(
        {
            "content": "ok",
            "tool_calls": CALLS[:1],
            "simlab_tool_results": [{"tool_call_id": "c1", "result": "open since Monday"}],
        }
    )
    assert completion_reply(body).tool_calls[0].result == "open since Monday"


def test_without_the_extension_calls_keep_no_result_and_the_reply_says_so() -> None:
    reply = completion_reply(_body({"content": "Done.", "tool_calls": CALLS}))
    assert [c.result for c in reply.tool_calls] == [None, None]
    assert reply.meta == {"tool_results": "not_reported"}


def test_a_text_only_reply_is_not_marked() -> None:
    assert completion_reply(_body({"content": "Which ticket?"})).meta == {}


@pytest.mark.parametrize(
    ("results", "problem"),
    [
        ([{"tool_call_id": "c1", "result": 1}], r"no result reported for close \(id c2\)"),
        (
            [{"tool_call_id": "c1"}, {"tool_call_id": "c2"}, {"tool_call_id": "zz"}],
            r"unknown tool call ids \['zz'\]; the calls' ids are \['c1', 'c2'\]",
        ),
        ([{"tool_call_id": "c1"}, {"tool_call_id": "c1"}], r"two results for tool_call_id 'c1'"),
        ([{"result": 3}], r"entry 0 has no tool_call_id"),
        ({"c1": 1}, r"must be a list, not dict"),
    ],
)
def test_results_that_do_not_match_the_calls_are_an_agent_error(results: Any, problem: str) -> None:
    body = _body({"content": "x", "tool_calls": CALLS, "simlab_tool_results": results})
    with pytest.raises(HttpAgentError, match=problem) as info:
        completion_reply(body, "POST http://h/chat/completions")
    assert "docs/http-targets.md" in str(info.value)
