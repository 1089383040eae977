"""Rate limits: a token bucket on anyio's clock, and per-role limits.

A bucket holds at most ``rate`` units and refills ``rate`` units per
``period_s``; it starts full, so a fresh run may burst one window's worth. Token
limits are charged twice: an estimate before the call (so a burst of long
prompts waits) and the difference once the real usage is known (the bucket may
go negative, making the next caller wait for the debt).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio


class TokenBucket:
    """Admits ``rate`` units per ``period_s`` seconds, in arrival order.

    Args:
        rate: Units admitted per period (requests or tokens).
        period_s: The window length in seconds (60 for per-minute limits).
        clock: The time source; anyio's clock by default.
        sleep: How to wait; ``anyio.sleep`` by default.
    """

    def __init__(
        self,
        rate: float,
        period_s: float = 60.0,
        *,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        if rate <= 0 or period_s <= 0:
            raise ValueError("rate and period_s must be positive")
        self.rate = float(rate)
        self.period_s = float(period_s)
        self._clock = clock or anyio.current_time
        self._sleep = sleep or anyio.sleep
        self._level = float(rate)
        self._stamp: float | None = None
        self._lock = anyio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        if self._stamp is not None:
            elapsed = now - self._stamp
            self._level = min(self.rate, self._level + elapsed * self.rate / self.period_s)
        self._stamp = now

    async def acquire(self, units: float = 1.0) -> None:
        """Wait until ``units`` are available, then take them.

        A request larger than the bucket takes the whole bucket: it is
        admitted once the bucket is full rather than never.
        """
        units = min(float(units), self.rate)
        async with self._lock:  # FIFO: one waiter at a time computes its wait
            self._refill()
            while self._level < units:
                await self._sleep((units - self._level) * self.period_s / self.rate)
                self._refill()
            self._level -= units

    def charge(self, units: float) -> None:
        """Take (or, if negative, give back) units without waiting; may go into debt."""
        self._refill()
        self._level = min(self.rate, self._level - units)


class RoleLimits:
    """Concurrency, requests-per-minute and tokens-per-minute limits of one role.

    Args:
        concurrency: Calls running at once.
        rpm: Requests admitted per period (None: unlimited).
        tpm: Tokens admitted per period (None: unlimited).
        period_s: The rate window; 60 s for per-minute limits.
    """

    def __init__(
        self,
        concurrency: int,
        rpm: float | None = None,
        tpm: float | None = None,
        period_s: float = 60.0,
    ) -> None:
        # fast_acquire: a free slot is taken without yielding to the event loop first
        # (an extra loop round per LLM call otherwise; the calls wait on the network anyway)
        self.slots = anyio.Semaphore(concurrency, fast_acquire=True)
        self.requests = TokenBucket(rpm, period_s) if rpm else None
        self.tokens = TokenBucket(tpm, period_s) if tpm else None

    async def admit(self, estimated_tokens: int) -> None:
        """Wait for the request and token allowances of one attempt."""
        if self.requests is not None:
            await self.requests.acquire(1)
        if self.tokens is not None:
            await self.tokens.acquire(estimated_tokens)

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        """Correct the token bucket once the real usage is known."""
        if self.tokens is not None:
            self.tokens.charge(actual_tokens - estimated_tokens)


def estimate_tokens(chars: int) -> int:
    """A cheap input-token estimate: about four characters per token."""
    return chars // 4 + 1
