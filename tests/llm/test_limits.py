"""The token bucket on a fake clock (exact) and on anyio's clock (generous bounds)."""

from __future__ import annotations

import anyio
import pytest

from simlab.llm import RoleLimits, TokenBucket

pytestmark = pytest.mark.anyio


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


async def test_bucket_admits_n_per_window_exactly() -> None:
    clock = FakeClock()
    bucket = TokenBucket(5, 10.0, clock=clock, sleep=clock.sleep)
    admitted_at = []
    for _ in range(12):
        await bucket.acquire()
        admitted_at.append(round(clock.t, 9))
    # Five at once (a full bucket), then one every 10/5 = 2 s.
    assert admitted_at == [0, 0, 0, 0, 0, 2, 4, 6, 8, 10, 12, 14]


async def test_debt_delays_the_next_caller() -> None:
    clock = FakeClock()
    bucket = TokenBucket(100, 60.0, clock=clock, sleep=clock.sleep)
    await bucket.acquire(10)  # estimate
    bucket.charge(140)  # the real call used 150: level 100 - 150 = -50
    await bucket.acquire(10)  # needs 60 tokens of refill at 100/60 per s = 36 s
    assert clock.t == pytest.approx(36.0)


async def test_real_clock_window_lower_bound() -> None:
    limits = RoleLimits(concurrency=8, rpm=4, period_s=0.2)
    start = anyio.current_time()
    for _ in range(12):
        await limits.admit(0)
    # 4 at once, the other 8 at one per 0.05 s: at least 0.4 s.
    assert anyio.current_time() - start >= 0.39
