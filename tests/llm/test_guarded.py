"""Retries, waits, cost over attempts, counters and concurrency of GuardedLLM."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from simlab.llm import (
    LLM,
    Budget,
    GuardedLLM,
    LLMMessage,
    LLMRequest,
    LLMResponse,
    LLMStats,
    MalformedResponseError,
    PriceTable,
    Pricing,
    ProviderStatusError,
    ProviderTimeoutError,
    RetryPolicy,
    RoleLimits,
    Usage,
)
from tests.llm.conftest import ScriptedLLM

pytestmark = pytest.mark.anyio

REQ = LLMRequest(messages=(LLMMessage(role="user", content="hi"),), role="user")
PRICES = PriceTable({"m": Pricing(input=1.0, output=2.0)})


def _ok(text: str = "ok", tokens: int = 1_000) -> LLMResponse:
    return LLMResponse(text=text, model="m", usage=Usage(input_tokens=tokens, output_tokens=tokens))


def _guard(inner: LLM, stats: LLMStats, budget: Budget | None = None, **policy: Any) -> GuardedLLM:
    return GuardedLLM(
        inner,
        limits=RoleLimits(4),
        policy=RetryPolicy(**{"base_s": 1.0, "cap_s": 8.0, "max_retry_after_s": 5.0, **policy}),
        prices=PRICES,
        budget=budget,
        stats=stats,
    )


async def test_retry_sequence_honours_retry_after(
    scripted: Callable[..., Any], retry_waits: list[float]
) -> None:
    inner = scripted(
        [
            ProviderStatusError("slow down", status=429, headers={"retry-after": "2"}),
            ProviderStatusError("overloaded", status=529, headers={"retry-after-ms": "1500"}),
            ProviderStatusError("way too busy", status=429, headers={"retry-after": "120"}),
            _ok("finally"),
        ]
    )
    stats = LLMStats()
    resp = await _guard(inner, stats).complete(REQ)
    assert resp.text == "finally"
    assert resp.attempts == 4
    assert retry_waits == [2.0, 1.5, 5.0]  # the third is capped at max_retry_after_s
    role = stats.role("user")
    assert (role.calls, role.attempts, role.retries, role.failures) == (1, 4, 3, 0)
    assert dict(role.errors) == {"http_429": 2, "http_529": 1}


async def test_backoff_without_hint_grows_and_caps(
    scripted: Callable[..., Any], retry_waits: list[float]
) -> None:
    inner = scripted([ProviderTimeoutError("t")] * 6 + [_ok()])
    await _guard(inner, LLMStats(), max_attempts=7).complete(REQ)
    steps = [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert len(retry_waits) == 6
    for wait, step in zip(retry_waits, steps, strict=True):
        assert step / 2 <= wait <= step


async def test_gives_up_after_max_attempts_with_cost_of_failed_attempts(
    scripted: Callable[..., Any],
) -> None:
    billed = Usage(input_tokens=1_000, output_tokens=500)
    inner = scripted([MalformedResponseError("cut", usage=billed)] * 3)
    stats, budget = LLMStats(), Budget(1.0)
    with pytest.raises(MalformedResponseError) as info:
        await _guard(inner, stats, budget, max_attempts=3).complete(REQ)
    # Each attempt billed 1000*1 + 500*2 = 2000 per 1e6 = 0.002; three of them.
    assert info.value.cost_usd == pytest.approx(0.006)
    assert budget.spent_usd == pytest.approx(0.006)
    role = stats.role("user")
    assert (role.attempts, role.retries, role.failures) == (3, 2, 1)
    assert role.usage.input_tokens == 3_000


async def test_cost_sums_failed_attempts_with_usage_and_the_success(
    scripted: Callable[..., Any],
) -> None:
    inner = scripted(
        [MalformedResponseError("cut", usage=Usage(output_tokens=250)), _ok(tokens=1_000)]
    )
    stats, budget = LLMStats(), Budget(None)
    resp = await _guard(inner, stats, budget).complete(REQ)
    # failed: 250*2 = 500; success: 1000*1 + 1000*2 = 3000; total 3500 / 1e6
    assert resp.cost_usd == pytest.approx(0.0035)
    assert budget.spent_usd == pytest.approx(0.0035)
    assert stats.role("user").cost_usd == pytest.approx(0.0035)
    assert resp.usage == Usage(input_tokens=1_000, output_tokens=1_000)  # the final attempt's


async def test_an_unpriced_models_cost_is_unknown_and_a_free_backends_is_zero(
    scripted: Callable[..., Any],
) -> None:
    # (not "m..."-prefixed: the table's "m" would price it)
    unpriced = LLMResponse(text="ok", model="zz-local-model", usage=Usage(input_tokens=9))
    stats, budget = LLMStats(), Budget(1.0)
    resp = await _guard(scripted([unpriced]), stats, budget).complete(REQ)
    assert resp.cost_usd is None and stats.role("user").cost_usd is None
    assert stats.cost_usd is None and budget.unpriced == 1 and budget.exhausted

    class Free(ScriptedLLM):
        @property
        def free(self) -> bool:
            return True

    free_stats = LLMStats()
    resp = await _guard(Free([unpriced]), free_stats).complete(REQ)
    assert resp.cost_usd == 0.0 and free_stats.cost_usd == 0.0


async def test_fail_fast_does_not_retry(
    scripted: Callable[..., Any], retry_waits: list[float]
) -> None:
    inner = scripted([ProviderStatusError("bad key", status=401), _ok()])
    stats = LLMStats()
    with pytest.raises(ProviderStatusError, match="bad key"):
        await _guard(inner, stats).complete(REQ)
    assert retry_waits == []
    assert len(inner.seen) == 1
    assert dict(stats.role("user").errors) == {"http_401": 1}


async def test_concurrency_limit_holds() -> None:
    class Slow(LLM):
        def __init__(self) -> None:
            self.now = 0
            self.peak = 0

        async def complete(self, req: LLMRequest) -> LLMResponse:
            self.now += 1
            self.peak = max(self.peak, self.now)
            await anyio.sleep(0.01)
            self.now -= 1
            return _ok()

    inner = Slow()
    guard = GuardedLLM(inner, limits=RoleLimits(3), policy=RetryPolicy(), stats=LLMStats())
    async with anyio.create_task_group() as tg:
        for _ in range(12):
            tg.start_soon(guard.complete, REQ)
    assert inner.peak == 3
    assert guard.stats.role("user").calls == 12


async def test_jitter_sequence_runs_on_across_calls_including_a_given_up_one(
    scripted: Callable[..., Any], retry_waits: list[float]
) -> None:
    # One seeded RNG per client; the wait after the last allowed attempt is drawn
    # too (the sequence tenacity 9 gave), so later calls' waits stay as they were.
    inner = scripted([ProviderTimeoutError("t")] * 3 + [_ok()])
    guard = _guard(inner, LLMStats(), max_attempts=2)  # base 1 s: waits in [0.5, 1.0]
    with pytest.raises(ProviderTimeoutError):
        await guard.complete(REQ)
    await guard.complete(REQ)
    draws = random.Random(0)
    first, _given_up, second = (0.5 + draws.random() * 0.5 for _ in range(3))
    assert retry_waits == [first, second]
