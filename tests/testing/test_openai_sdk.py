"""The official openai SDK against the fake server: chat completions streamed and not,
native tool calls and tool_choice, the Responses API."""

import json
from typing import Any

import pytest
from openai import AsyncOpenAI, BadRequestError

from simlab.testing import FakeProvider, FakeReply, count_tokens, roleplay, scripted

pytestmark = pytest.mark.anyio


def _function(name: str, strict: bool = False) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {"booking_ref": {"type": "string"}},
        "required": ["booking_ref"],
        "additionalProperties": False,
    }
    function = {"name": name, "description": f"{name} a booking", "parameters": parameters}
    return {"type": "function", "function": function | ({"strict": True} if strict else {})}


TOOLS = [_function("get_booking"), _function("refund")]
ASK = [{"role": "user", "content": "I want a refund for booking MB4T9R."}]
LONG = "This reply is long enough to arrive in several pieces of a stream."


def _client(base_url: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=base_url + "/v1", api_key="test", max_retries=0)


async def test_chat_tool_choice_required_and_named_force_a_call() -> None:
    # the responder only ever says text: the calls come from tool_choice alone
    fake = FakeProvider(responder=scripted(["Just text."]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        required = await client.chat.completions.create(
            model="g", messages=ASK, tools=TOOLS, tool_choice="required"
        )
        named = await client.chat.completions.create(
            model="g",
            messages=ASK,
            tools=TOOLS,
            tool_choice={"type": "function", "function": {"name": "refund"}},
        )
        auto = await client.chat.completions.create(model="g", messages=ASK, tools=TOOLS)
        with pytest.raises(BadRequestError, match="no tool named"):
            await client.chat.completions.create(
                model="g",
                messages=ASK,
                tools=TOOLS,
                tool_choice={"type": "function", "function": {"name": "book"}},
            )
        await client.close()
    choice = required.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert call.type == "function" and call.id.startswith("call_")
    assert call.function.name == "get_booking"  # the first tool, its schema's minimal args
    assert json.loads(call.function.arguments) == {"booking_ref": "ok"}
    named_calls = named.choices[0].message.tool_calls or []
    assert [c.function.name for c in named_calls] == ["refund"]
    assert auto.choices[0].finish_reason == "stop" and auto.choices[0].message.tool_calls is None
    assert auto.choices[0].message.content == "Just text."
    assert required.usage is not None and required.usage.completion_tokens == count_tokens(
        "get_booking" + call.function.arguments
    )
    # the tools are part of the prompt, as on the real API
    assert required.usage.prompt_tokens > count_tokens(ASK[0]["content"])


async def test_chat_replies_calls_and_none_forbids_them() -> None:
    calls = FakeReply.calling(("get_booking", {"booking_ref": "MB4T9R"}), ("refund", {}))
    fake = FakeProvider(responder=scripted([calls, FakeReply("Sure.", calls.tool_calls)]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        called = await client.chat.completions.create(model="g", messages=ASK, tools=TOOLS)
        forbidden = await client.chat.completions.create(
            model="g", messages=ASK, tools=TOOLS, tool_choice="none"
        )
        await client.close()
    message = called.choices[0].message
    assert [
        (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
    ] == [
        ("get_booking", {"booking_ref": "MB4T9R"}),
        ("refund", {}),
    ]
    assert len({c.id for c in message.tool_calls or []}) == 2
    assert forbidden.choices[0].message.tool_calls is None
    assert forbidden.choices[0].message.content == "Sure."
    assert forbidden.choices[0].finish_reason == "stop"


async def test_chat_stream_with_usage() -> None:
    fake = FakeProvider(responder=scripted([LONG]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        stream = await client.chat.completions.create(
            model="g", messages=ASK, stream=True, stream_options={"include_usage": True}
        )
        chunks = [chunk async for chunk in stream]
        plain = await client.chat.completions.create(model="g", messages=ASK, stream=True)
        plain_chunks = [chunk async for chunk in plain]
        await client.close()
    with_choices = [c for c in chunks if c.choices]
    assert len(with_choices) >= 4 and all(c.object == "chat.completion.chunk" for c in chunks)
    assert with_choices[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in with_choices) == LONG
    assert with_choices[-1].choices[0].finish_reason == "stop"
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens == count_tokens(LONG)
    assert last.usage.prompt_tokens == count_tokens(ASK[0]["content"])
    assert all(c.usage is None for c in chunks[:-1])
    assert all(c.choices and c.usage is None for c in plain_chunks)  # no usage unless asked


async def test_chat_stream_tool_calls_accumulate_in_the_sdks_stream_helper() -> None:
    calls = FakeReply.calling(("get_booking", {"booking_ref": "MB4T9R" * 5}), ("refund", {}))
    fake = FakeProvider(responder=scripted(["Only text.", calls]))
    strict = [_function("get_booking", strict=True), _function("refund", strict=True)]
    async with fake.serve() as base_url:
        client = _client(base_url)
        async with client.chat.completions.stream(
            model="g",
            messages=ASK,
            tools=strict,
            tool_choice="required",
            stream_options={"include_usage": True},
        ) as stream:
            forced = await stream.get_final_completion()
        raw = await client.chat.completions.create(
            model="g", messages=ASK, tools=TOOLS, stream=True
        )
        deltas = [c.choices[0].delta async for c in raw if c.choices]
        await client.close()
    choice = forced.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls or []
    assert call.function.name == "get_booking"
    assert call.function.parsed_arguments == {"booking_ref": "ok"}  # type: ignore[union-attr]
    assert forced.usage is not None and forced.usage.completion_tokens > 0
    pieces = [
        (t.index, t.id, t.function.arguments if t.function else None)
        for d in deltas
        for t in d.tool_calls or []
    ]
    assert {index for index, _, _ in pieces} == {0, 1}
    ids = [i for _, i, _ in pieces if i]
    assert len(ids) == 2 and len(set(ids)) == 2  # each call's id comes once, in its first delta
    first_args = "".join(a or "" for index, _, a in pieces if index == 0)
    assert json.loads(first_args) == {"booking_ref": "MB4T9R" * 5}
    assert sum(1 for index, _, _ in pieces if index == 0) > 2  # arguments arrive in pieces


async def test_chat_roleplay_agent_calls_natively_and_reads_tool_messages() -> None:
    """With tools sent, the roleplay plays the agent (reference v2) with native calls."""
    fake = FakeProvider(responder=roleplay)
    turns: list[Any] = [
        {"role": "user", "content": "I want a refund for my booking."},
        {"role": "assistant", "content": "Please tell me: booking reference?"},
        {"role": "user", "content": "The booking reference is MB4T9R."},
    ]
    async with fake.serve() as base_url:
        client = _client(base_url)
        first = await client.chat.completions.create(model="g", messages=turns, tools=TOOLS)
        (call,) = first.choices[0].message.tool_calls or []
        result = {"booking_ref": "MB4T9R", "total_paid": 63}
        turns += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)},
        ]
        second = await client.chat.completions.create(model="g", messages=turns, tools=TOOLS)
        await client.close()
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "get_booking",
        {"booking_ref": "MB4T9R"},
    )
    assert second.choices[0].message.tool_calls is None
    assert "MB4T9R" in (second.choices[0].message.content or "")
    assert "Shall I go ahead?" in (second.choices[0].message.content or "")
    assert fake.requests[-1].messages[-1].tool_results == (json.dumps(result),)


async def test_responses_api_text_messages_and_function_calls() -> None:
    fake = FakeProvider(responder=scripted(["Hello back.", "Bye."]))
    tool = {"type": "function", "name": "refund", "parameters": TOOLS[1]["function"]["parameters"]}
    async with fake.serve() as base_url:
        client = _client(base_url)
        text = await client.responses.create(model="g", input="Hello there")
        items = await client.responses.create(
            model="g",
            instructions="Be brief.",
            input=[
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello back."},
                {"role": "user", "content": [{"type": "input_text", "text": "bye"}]},
            ],
        )
        called = await client.responses.create(
            model="g", input="Refund MB4T9R.", tools=[tool], tool_choice="required"
        )
        (fc,) = called.output
        after = await client.responses.create(
            model="g",
            input=[
                {"role": "user", "content": "Refund MB4T9R."},
                fc.model_dump(exclude_none=True),
                {"type": "function_call_output", "call_id": fc.call_id, "output": '{"ok": 1}'},
            ],
            tools=[tool],
        )
        with pytest.raises(BadRequestError, match="input"):
            await client.responses.create(model="g")  # type: ignore[call-overload]
        await client.close()
    assert text.object == "response" and text.status == "completed"
    assert text.output_text == "Hello back." and text.output[0].type == "message"
    assert text.usage is not None
    assert text.usage.input_tokens == count_tokens("Hello there")
    assert text.usage.output_tokens == count_tokens("Hello back.")
    assert text.usage.total_tokens == text.usage.input_tokens + text.usage.output_tokens
    assert items.output_text == "Bye."
    seen = fake.requests[1]
    assert seen.system == "Be brief." and seen.last_user_text == "bye"
    assert [m.role for m in seen.messages] == ["user", "assistant", "user"]
    assert fc.type == "function_call" and fc.name == "refund"
    assert json.loads(fc.arguments) == {"booking_ref": "ok"} and fc.call_id.startswith("call_")
    assert after.output_text == "Bye."  # the script cycles: the forced call took "Hello back."
    last = fake.requests[3]
    assert last.messages[1].tool_calls[0].name == "refund"
    assert last.messages[2].tool_results == ('{"ok": 1}',)


async def test_responses_stream_text_and_forced_function_call() -> None:
    fake = FakeProvider(responder=scripted([LONG]))
    tool = {"type": "function", "name": "refund", "parameters": TOOLS[1]["function"]["parameters"]}
    async with fake.serve() as base_url:
        client = _client(base_url)
        async with client.responses.stream(model="g", input="Hello there") as stream:
            deltas = [e.delta async for e in stream if e.type == "response.output_text.delta"]
            text = await stream.get_final_response()
        raw = await client.responses.create(
            model="g", input="Refund MB4T9R.", tools=[tool], tool_choice="required", stream=True
        )
        events = [event async for event in raw]
        await client.close()
    assert "".join(deltas) == LONG and len(deltas) >= 4
    assert text.status == "completed" and text.output_text == LONG
    assert text.usage is not None and text.usage.output_tokens == count_tokens(LONG)
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    arguments = "".join(
        e.delta for e in events if e.type == "response.function_call_arguments.delta"
    )
    assert json.loads(arguments) == {"booking_ref": "ok"}
    final = events[-1].response  # type: ignore[union-attr]
    (call,) = final.output
    assert call.type == "function_call" and call.name == "refund"
    assert final.usage is not None and final.usage.output_tokens > 0
