"""The official anthropic SDK against the fake server: round trip, usage, cache, errors."""

import anthropic
import pytest
from anthropic import AsyncAnthropic

from simlab.testing import FakeProvider, FakeProviderConfig, scripted

pytestmark = pytest.mark.anyio

CC = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "You help book trips. " * 20, "cache_control": CC}]  # 420 chars


async def test_round_trip_text_usage_and_cache_growth() -> None:
    fake = FakeProvider(responder=scripted(["Where to?", "Booked."]))
    async with fake.serve() as base_url:
        client = AsyncAnthropic(base_url=base_url, api_key="test", max_retries=0)
        first_turn = [
            {
                "role": "user",
                "content": [{"type": "text", "text": "A trip, please.", "cache_control": CC}],
            }
        ]
        first = await client.messages.create(
            model="claude-fake", max_tokens=100, system=SYSTEM, messages=first_turn
        )
        second = await client.messages.create(
            model="claude-fake",
            max_tokens=100,
            system=SYSTEM,
            messages=[
                {"role": "user", "content": "A trip, please."},
                {"role": "assistant", "content": "Where to?"},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "Hanoi.", "cache_control": CC}],
                },
            ],
        )
        await client.close()
    assert first.content[0].type == "text" and first.content[0].text == "Where to?"
    assert first.stop_reason == "end_turn" and first.model == "claude-fake"
    # system 420 chars -> 105 tokens; "A trip, please." 15 chars -> 4; all written on turn 1
    assert first.usage.cache_creation_input_tokens == 109
    assert first.usage.cache_read_input_tokens == 0 and first.usage.input_tokens == 0
    assert first.usage.output_tokens == 3  # "Where to?" is 9 chars
    # turn 2 reads turn 1's prefix and writes "Where to?" (3) + "Hanoi." (2)
    assert second.usage.cache_read_input_tokens == 109
    assert second.usage.cache_creation_input_tokens == 5
    assert second.content[0].text == "Booked."
    stats = fake.stats()
    assert stats.succeeded == 2 and stats.cache_read_input_tokens == 109
    assert stats.input_tokens == 109 + 114


async def test_max_tokens_and_stop_sequence() -> None:
    fake = FakeProvider(responder=scripted(["one two three END four", "x" * 40]))
    async with fake.serve() as base_url:
        client = AsyncAnthropic(base_url=base_url, api_key="test", max_retries=0)
        msgs = [{"role": "user", "content": "go"}]
        stopped = await client.messages.create(
            model="m", max_tokens=50, messages=msgs, stop_sequences=["END"]
        )
        capped = await client.messages.create(model="m", max_tokens=3, messages=msgs)
        await client.close()
    assert stopped.stop_reason == "stop_sequence" and stopped.stop_sequence == "END"
    assert stopped.content[0].text == "one two three "
    assert capped.stop_reason == "max_tokens" and capped.content[0].text == "x" * 12
    assert capped.usage.output_tokens == 3


async def test_faults_surface_as_the_sdks_own_errors() -> None:
    config = FakeProviderConfig(
        fault_sequence=("rate_limit", "overloaded", "server_error"), retry_after_s=2
    )
    fake = FakeProvider(config)
    async with fake.serve() as base_url:
        client = AsyncAnthropic(base_url=base_url, api_key="test", max_retries=0)
        msgs = [{"role": "user", "content": "hi"}]
        with pytest.raises(anthropic.RateLimitError) as limited:
            await client.messages.create(model="m", max_tokens=50, messages=msgs)
        with pytest.raises(anthropic.InternalServerError) as overloaded:
            await client.messages.create(model="m", max_tokens=50, messages=msgs)
        with pytest.raises(anthropic.InternalServerError) as failed:
            await client.messages.create(model="m", max_tokens=50, messages=msgs)
        ok = await client.messages.create(model="m", max_tokens=50, messages=msgs)
        with pytest.raises(anthropic.BadRequestError):
            await client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "bot", "content": "x"}]
            )
        await client.close()
    assert limited.value.status_code == 429
    assert limited.value.response.headers["retry-after"] == "2"
    assert limited.value.body["error"]["type"] == "rate_limit_error"
    assert overloaded.value.status_code == 529
    assert overloaded.value.body["error"]["type"] == "overloaded_error"
    assert failed.value.status_code == 500 and failed.value.body["error"]["type"] == "api_error"
    assert ok.stop_reason == "end_turn"
    stats = fake.stats()
    assert stats.faults["rate_limit"] == stats.faults["overloaded"] == 1
    assert stats.requests == 4 and stats.succeeded == 1 and stats.bad_requests == 1


async def test_missing_key_is_401_when_required() -> None:
    fake = FakeProvider(FakeProviderConfig(require_api_key=True))
    async with fake.serve() as base_url:
        import httpx

        async with httpx.AsyncClient(base_url=base_url) as http:
            body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
            missing = await http.post("/v1/messages", json=body)
            present = await http.post("/v1/messages", json=body, headers={"x-api-key": "k"})
    assert missing.status_code == 401
    assert missing.json()["error"]["type"] == "authentication_error"
    assert present.status_code == 200
