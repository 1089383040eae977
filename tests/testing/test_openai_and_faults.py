"""OpenAI shape and every fault kind, seen by a plain httpx client."""

import json
import time

import anyio
import httpx
import pytest

from simlab.testing import FakeProvider, FakeProviderConfig, FaultKind, FaultMix, scripted

pytestmark = pytest.mark.anyio

ANTHROPIC_BODY = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
OPENAI_BODY = {"model": "g", "messages": [{"role": "user", "content": "hi"}], "seed": 3}


async def test_openai_round_trip_usage_and_cached_tokens() -> None:
    fake = FakeProvider(responder=scripted(["Sure thing."]))
    messages = [{"role": "system", "content": "s" * 40}, {"role": "user", "content": "u" * 8}]
    async with fake.serve() as base_url, httpx.AsyncClient(base_url=base_url + "/v1") as http:
        first = await http.post("/chat/completions", json={"model": "g", "messages": messages})
        longer = [
            *messages,
            {"role": "assistant", "content": "Sure thing."},
            {"role": "user", "content": "ok"},
        ]
        second = await http.post("/chat/completions", json={"model": "g", "messages": longer})
    body = first.json()
    assert first.status_code == 200 and body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Sure thing.",
        "refusal": None,
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"]["prompt_tokens"] == 12 and body["usage"]["completion_tokens"] == 3
    assert body["usage"]["total_tokens"] == 15
    assert body["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    usage = second.json()["usage"]
    assert usage["prompt_tokens"] == 12 + 3 + 1
    assert usage["prompt_tokens_details"]["cached_tokens"] == 12


async def test_openai_errors_have_openai_shape() -> None:
    config = FakeProviderConfig(fault_sequence=("rate_limit", "overloaded"), retry_after_s=0.5)
    async with (
        FakeProvider(config).serve() as base_url,
        httpx.AsyncClient(base_url=base_url) as http,
    ):
        limited = await http.post("/v1/chat/completions", json=OPENAI_BODY)
        overloaded = await http.post("/v1/chat/completions", json=OPENAI_BODY)
        bad = await http.post("/v1/chat/completions", json={"messages": []})
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "0.5" and limited.headers["retry-after-ms"] == "500"
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"
    assert overloaded.status_code == 503 and overloaded.json()["error"]["type"] == "server_error"
    assert bad.status_code == 400 and "model" in bad.json()["error"]["message"]


async def _one_fault(
    kind: FaultKind, **config: float
) -> tuple[FakeProvider, httpx.Response | Exception]:
    fake = FakeProvider(FakeProviderConfig(fault_sequence=(kind,), **config))
    # a short wait only where the fault is the wait: a loaded CI machine can take longer
    # than 0.3 s to answer on loopback
    first_wait = 0.3 if kind == "timeout" else 10.0
    async with fake.serve() as base_url, httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        try:
            outcome: httpx.Response | Exception = await http.post(
                "/v1/messages", json=ANTHROPIC_BODY, timeout=first_wait
            )
        except httpx.HTTPError as exc:
            outcome = exc
        after = await http.post("/v1/messages", json=ANTHROPIC_BODY)
        assert after.status_code == 200  # the fault hit one request only
    return fake, outcome


@pytest.mark.parametrize(
    ("kind", "status", "error_type"),
    [
        ("rate_limit", 429, "rate_limit_error"),
        ("overloaded", 529, "overloaded_error"),
        ("server_error", 500, "api_error"),
    ],
)
async def test_status_faults(kind: FaultKind, status: int, error_type: str) -> None:
    fake, response = await _one_fault(kind, retry_after_s=1)
    assert isinstance(response, httpx.Response) and response.status_code == status
    assert response.json() == {
        "type": "error",
        "error": {"type": error_type, "message": response.json()["error"]["message"]},
        "request_id": "req_fake000000000000",
    }
    assert ("retry-after" in response.headers) == (kind == "rate_limit")
    assert fake.stats().faults[kind] == 1


async def test_dropped_connection_is_a_transport_error() -> None:
    fake, outcome = await _one_fault("dropped")
    assert isinstance(outcome, httpx.RemoteProtocolError)
    assert fake.stats().faults["dropped"] == 1


async def test_malformed_body_is_200_but_not_json() -> None:
    _, response = await _one_fault("malformed")
    assert isinstance(response, httpx.Response) and response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


async def test_timeout_hangs_past_the_client_and_does_not_hold_shutdown() -> None:
    started = time.monotonic()
    fake, outcome = await _one_fault("timeout", timeout_hang_s=60)
    assert isinstance(outcome, httpx.ReadTimeout)
    assert fake.stats().faults["timeout"] == 1
    # A 60 s hang must not delay the server's stop; loose bound, far below the hang.
    assert time.monotonic() - started < 30


async def test_hanging_request_is_released_when_the_server_stops() -> None:
    fake = FakeProvider(FakeProviderConfig(fault_sequence=("timeout",), timeout_hang_s=60))
    outcome: list[object] = []

    async def call(base_url: str) -> None:
        async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
            try:
                outcome.append(await http.post("/v1/messages", json=ANTHROPIC_BODY))
            except httpx.HTTPError as exc:
                outcome.append(exc)

    async with anyio.create_task_group() as tg, fake.serve() as base_url:
        tg.start_soon(call, base_url)
        while fake.stats().active == 0:
            await anyio.sleep(0.01)
    assert len(outcome) == 1 and isinstance(outcome[0], httpx.TransportError)


async def test_fault_rate_count_is_fixed_by_the_seed() -> None:
    config = FakeProviderConfig(fault_rate=0.2, fault_mix=FaultMix(), seed=2024)
    fake = FakeProvider(config)
    statuses: list[int] = []

    async def call(http: httpx.AsyncClient) -> None:
        statuses.append((await http.post("/v1/messages", json=ANTHROPIC_BODY)).status_code)

    limits = httpx.Limits(max_connections=16)
    async with (
        fake.serve() as base_url,
        httpx.AsyncClient(base_url=base_url, limits=limits) as http,
    ):
        async with anyio.create_task_group() as tg:
            for _ in range(200):
                tg.start_soon(call, http)
        over_http = (await http.get("/stats")).json()
    stats = fake.stats()
    assert stats.requests == 200
    # Binomial(200, 0.2): mean 40, sd 5.7; seed 2024 draws 44 (15 / 13 / 16 by kind).
    assert 28 <= stats.total_faults <= 52
    assert stats.total_faults == 44
    assert stats.faults == {
        "rate_limit": 15,
        "overloaded": 13,
        "server_error": 16,
        "timeout": 0,
        "dropped": 0,
        "malformed": 0,
    }
    assert statuses.count(429) == 15 and statuses.count(529) == 13 and statuses.count(500) == 16
    assert over_http["total_faults"] == 44 and over_http["succeeded"] == 156


async def test_latency_is_honoured() -> None:
    fake = FakeProvider(FakeProviderConfig(latency_ms=150, jitter_ms=50))
    async with fake.serve() as base_url, httpx.AsyncClient(base_url=base_url) as http:
        await http.get("/healthz")  # connect first, so the timing is the answer's
        started = time.monotonic()
        response = await http.post("/v1/messages", json=ANTHROPIC_BODY)
        elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert elapsed >= 0.150


async def test_healthz_and_models() -> None:
    async with FakeProvider().serve() as base_url, httpx.AsyncClient(base_url=base_url) as http:
        health = await http.get("/healthz")
        models = await http.get("/v1/models")
    assert health.json() == {"status": "ok"}
    assert models.json()["data"][0]["id"] == "fake-model"
