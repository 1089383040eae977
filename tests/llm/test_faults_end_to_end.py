"""Every fault the fake provider injects is classified, counted and retried, on both APIs."""

from __future__ import annotations

import pytest

from simlab.llm import LLMMessage, LLMRequest, LLMSpec, LLMStats, create_llm
from simlab.testing import FakeProvider, FakeProviderConfig, FaultKind, scripted

pytestmark = pytest.mark.anyio

FAULTS: tuple[FaultKind, ...] = (
    "dropped",
    "malformed",
    "timeout",
    "rate_limit",
    "overloaded",
    "server_error",
)


@pytest.mark.parametrize(
    ("backend", "overloaded_status"), [("anthropic", "http_529"), ("openai", "http_503")]
)
async def test_every_fault_kind_is_retried(
    backend: str, overloaded_status: str, retry_waits: list[float]
) -> None:
    fake = FakeProvider(
        FakeProviderConfig(fault_sequence=FAULTS, timeout_hang_s=5, retry_after_s=2),
        scripted(["made it"]),
    )
    stats = LLMStats()
    async with fake.serve() as base_url:
        spec = LLMSpec(backend=backend, base_url=base_url, model="m", timeout_s=0.3, max_attempts=7)
        llm = create_llm(spec, stats=stats)
        resp = await llm.complete(LLMRequest(messages=(LLMMessage(role="user", content="hi"),)))
        await llm.aclose()
    assert resp.text == "made it" and resp.attempts == 7
    role = stats.role("agent")
    assert dict(role.errors) == {
        "connection": 1,
        "malformed": 1,
        "timeout": 1,
        "http_429": 1,
        overloaded_status: 1,
        "http_500": 1,
    }
    assert (role.retries, role.failures) == (6, 0)
    assert retry_waits[3] == 2.0  # after the 429: its retry-after, not a backoff step
