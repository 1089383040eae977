"""The official anthropic SDK against the fake server: streaming, tool use and tool_choice,
count_tokens, the roleplay agent's native calls."""

import json
from typing import Any

import pytest
from anthropic import APIConnectionError, AsyncAnthropic, BadRequestError

from simlab.testing import FakeProvider, FakeProviderConfig, FakeReply, count_tokens, roleplay
from simlab.testing import scripted as scripted_replies

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"booking_ref": {"type": "string"}},
    "required": ["booking_ref"],
}
TOOLS: list[Any] = [
    {"name": "get_booking", "description": "Look up a booking", "input_schema": SCHEMA},
    {"name": "refund", "description": "Refund a booking", "input_schema": SCHEMA},
]
ASK: list[Any] = [{"role": "user", "content": "I want a refund for booking MB4T9R."}]
LONG = "This reply is long enough to arrive in several pieces of a stream."


def _client(base_url: str) -> AsyncAnthropic:
    return AsyncAnthropic(base_url=base_url, api_key="test", max_retries=0)


async def test_stream_text_events_and_usage() -> None:
    fake = FakeProvider(responder=scripted_replies([LONG]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        async with client.messages.stream(model="m", max_tokens=100, messages=ASK) as stream:
            pieces = [text async for text in stream.text_stream]
            final = await stream.get_final_message()
        raw = await client.messages.create(model="m", max_tokens=100, messages=ASK, stream=True)
        kinds = [event.type async for event in raw]
        await client.close()
    assert "".join(pieces) == LONG and len(pieces) >= 4
    assert final.content[0].type == "text" and final.content[0].text == LONG
    assert final.stop_reason == "end_turn" and final.id.startswith("msg_")
    assert final.usage.output_tokens == count_tokens(LONG)
    assert final.usage.input_tokens == count_tokens(ASK[0]["content"])
    assert kinds[:2] == ["message_start", "content_block_start"]
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert set(kinds[2:-3]) == {"content_block_delta"}
    assert fake.stats().succeeded == 2


async def test_tool_choice_any_and_named_force_calls_streamed_and_not() -> None:
    fake = FakeProvider(responder=scripted_replies(["Just text."]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        forced = await client.messages.create(
            model="m", max_tokens=100, messages=ASK, tools=TOOLS, tool_choice={"type": "any"}
        )
        named = await client.messages.create(
            model="m",
            max_tokens=100,
            messages=ASK,
            tools=TOOLS,
            tool_choice={"type": "tool", "name": "refund"},
        )
        async with client.messages.stream(
            model="m", max_tokens=100, messages=ASK, tools=TOOLS, tool_choice={"type": "any"}
        ) as stream:
            streamed = await stream.get_final_message()
        auto = await client.messages.create(model="m", max_tokens=100, messages=ASK, tools=TOOLS)
        with pytest.raises(BadRequestError, match="no tool named"):
            await client.messages.create(
                model="m",
                max_tokens=100,
                messages=ASK,
                tools=TOOLS,
                tool_choice={"type": "tool", "name": "book"},
            )
        await client.close()
    for message in (forced, streamed):
        assert message.stop_reason == "tool_use"
        (block,) = message.content  # a forced turn has no text before its call
        assert block.type == "tool_use" and block.id.startswith("toolu_")
        assert (block.name, block.input) == ("get_booking", {"booking_ref": "ok"})
        assert message.usage.output_tokens == count_tokens(
            "get_booking" + json.dumps({"booking_ref": "ok"})
        )
    assert [b.name for b in named.content if b.type == "tool_use"] == ["refund"]
    assert auto.stop_reason == "end_turn" and [b.type for b in auto.content] == ["text"]


async def test_reply_calls_stream_with_text_first_and_none_forbids_them() -> None:
    reply = FakeReply.calling(
        ("get_booking", {"booking_ref": "MB4T9R" * 5}), ("refund", {}), text="Let me check."
    )
    fake = FakeProvider(responder=scripted_replies([reply]))
    async with fake.serve() as base_url:
        client = _client(base_url)
        async with client.messages.stream(
            model="m", max_tokens=100, messages=ASK, tools=TOOLS
        ) as stream:
            kinds = [event.type async for event in stream]
            streamed = await stream.get_final_message()
        forbidden = await client.messages.create(
            model="m", max_tokens=100, messages=ASK, tools=TOOLS, tool_choice={"type": "none"}
        )
        await client.close()
    assert streamed.stop_reason == "tool_use"
    assert [b.type for b in streamed.content] == ["text", "tool_use", "tool_use"]
    assert streamed.content[0].type == "text" and streamed.content[0].text == "Let me check."
    calls = [(b.name, b.input) for b in streamed.content if b.type == "tool_use"]
    assert calls == [("get_booking", {"booking_ref": "MB4T9R" * 5}), ("refund", {})]
    assert "input_json" in kinds  # the SDK's event for a partial_json delta
    assert forbidden.stop_reason == "end_turn"
    assert [(b.type, getattr(b, "text", None)) for b in forbidden.content] == [
        ("text", "Let me check.")
    ]


async def test_count_tokens_matches_what_a_message_is_charged() -> None:
    fake = FakeProvider(responder=scripted_replies(["ok"]))
    system = "You help with bookings."
    async with fake.serve() as base_url:
        client = _client(base_url)
        counted = await client.messages.count_tokens(
            model="m", system=system, messages=ASK, tools=TOOLS
        )
        sent = await client.messages.create(
            model="m", max_tokens=10, system=system, messages=ASK, tools=TOOLS
        )
        with pytest.raises(BadRequestError, match="messages"):
            await client.messages.count_tokens(model="m", messages=None)  # type: ignore[arg-type]
        await client.close()
    assert counted.input_tokens == sent.usage.input_tokens > count_tokens(system)
    assert fake.stats().requests == 1  # counting is no completion


async def test_roleplay_agent_calls_natively_and_reads_tool_result_blocks() -> None:
    fake = FakeProvider(responder=roleplay)
    turns: list[Any] = [
        {"role": "user", "content": "I want a refund for my booking."},
        {"role": "assistant", "content": "Please tell me: booking reference?"},
        {"role": "user", "content": "The booking reference is MB4T9R."},
    ]
    async with fake.serve() as base_url:
        client = _client(base_url)
        async with client.messages.stream(
            model="m", max_tokens=200, messages=turns, tools=TOOLS
        ) as stream:
            first = await stream.get_final_message()
        (call,) = [b for b in first.content if b.type == "tool_use"]
        result = {"type": "tool_result", "tool_use_id": call.id, "content": '{"total_paid": 63}'}
        turns += [
            {"role": "assistant", "content": [call.model_dump(exclude_none=True)]},
            {"role": "user", "content": [result]},
        ]
        second = await client.messages.create(
            model="m", max_tokens=200, messages=turns, tools=TOOLS
        )
        await client.close()
    assert first.stop_reason == "tool_use"
    assert (call.name, call.input) == ("get_booking", {"booking_ref": "MB4T9R"})
    assert second.stop_reason == "end_turn" and second.content[0].type == "text"
    assert "Shall I go ahead?" in second.content[0].text
    seen = fake.requests[-1].messages
    assert seen[-2].tool_calls[0].id == call.id
    assert seen[-1].tool_results == ('{"total_paid": 63}',)


async def test_a_malformed_stream_breaks_off_and_the_sdk_says_so() -> None:
    fake = FakeProvider(FakeProviderConfig(fault_sequence=("malformed",)))
    async with fake.serve() as base_url:
        client = _client(base_url)
        with pytest.raises(APIConnectionError, match="incomplete chunked read"):
            async with client.messages.stream(model="m", max_tokens=50, messages=ASK) as s:
                await s.get_final_message()
        after = await client.messages.create(model="m", max_tokens=50, messages=ASK)
        await client.close()
    assert after.stop_reason == "end_turn"
    assert fake.stats().faults["malformed"] == 1
