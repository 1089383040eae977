"""Retry classification (a pure function) and the backoff policy.

``classify`` looks only at a status, headers and a failure kind, so it is
table-tested without a network. ``RetryPolicy.wait_s`` turns a decision into a
wait: the provider's ``retry-after`` when it sent one (capped), otherwise
exponential backoff with jitter (capped).
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import anyio

from simlab.llm._errors import ProviderError

# Statuses worth another attempt: timeouts, conflicts, rate limits, overload and
# server errors. 4xx outside this set are the caller's fault and fail fast.
_RETRY_STATUSES = frozenset({408, 409, 429})
_RETRY_KINDS = {"timeout": "timeout", "connection": "connection", "malformed": "malformed"}


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """Whether to try again, after how long the provider asked for, and why.

    Attributes:
        retry: True when another attempt may succeed.
        after_s: The wait the provider asked for (``retry-after``), if any.
        reason: A short stable label, used as the error counter key.
    """

    retry: bool
    after_s: float | None
    reason: str


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait per ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date).

    Header names are matched case-insensitively; a date in the past gives 0.
    Unparseable values give None.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := lowered.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def classify(
    status: int | None,
    headers: Mapping[str, str],
    exc_kind: str | None,
    *,
    now: float | None = None,
) -> RetryDecision:
    """Decide whether a failed attempt is worth retrying.

    Args:
        status: The HTTP status, or None when no response arrived.
        headers: The response headers (any case).
        exc_kind: ``"timeout"``, ``"connection"`` or ``"malformed"``, or None.
        now: The current POSIX time for HTTP-date ``retry-after`` (default: now).

    Returns:
        The decision; ``reason`` is ``http_<status>`` or the failure kind.
    """
    if status is None or 200 <= status < 300:
        if exc_kind in _RETRY_KINDS:
            return RetryDecision(True, None, _RETRY_KINDS[exc_kind])
        return RetryDecision(False, None, exc_kind or "unknown")
    reason = f"http_{status}"
    if status in _RETRY_STATUSES or status >= 500:
        return RetryDecision(True, parse_retry_after(headers, now=now), reason)
    return RetryDecision(False, None, reason)


def classify_exception(exc: BaseException) -> RetryDecision:
    """``classify`` applied to a ``ProviderError``; anything else is not retried."""
    if isinstance(exc, ProviderError):
        return classify(exc.status, exc.headers, exc.kind)
    return RetryDecision(False, None, type(exc).__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many attempts and how long to wait between them.

    Attributes:
        max_attempts: Attempts in all, the first included.
        base_s: The first backoff step; step n waits up to ``base_s * 2**(n-1)``.
        cap_s: No computed backoff exceeds this.
        max_retry_after_s: A provider's ``retry-after`` is honoured up to this.
    """

    max_attempts: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0
    max_retry_after_s: float = 60.0

    def wait_s(self, decision: RetryDecision, attempt: int, rng: random.Random) -> float:
        """The wait before attempt ``attempt + 1`` (``attempt`` is 1-based)."""
        if decision.after_s is not None:
            return min(decision.after_s, self.max_retry_after_s)
        ceiling = min(self.cap_s, self.base_s * 2.0 ** (attempt - 1))
        # "Equal jitter": at least half the step, so waits still grow, spread
        # enough that clients hit by the same 429 do not retry in lockstep.
        return ceiling / 2.0 + rng.random() * ceiling / 2.0


Sleeper = Callable[[float], Awaitable[None]]
_sleeper: Sleeper = anyio.sleep


async def retry_sleep(seconds: float) -> None:
    """Sleep between retries through the current sleeper (see ``zero_retry_waits``)."""
    await _sleeper(seconds)


@contextmanager
def zero_retry_waits() -> Iterator[list[float]]:
    """Make retry waits instant, recording each wait that was asked for.

    Meant for tests (an autouse fixture): the yielded list receives the seconds
    every retry would have slept, in order.
    """
    global _sleeper
    asked: list[float] = []

    async def record(seconds: float) -> None:
        asked.append(seconds)
        await anyio.sleep(0)

    previous, _sleeper = _sleeper, record
    try:
        yield asked
    finally:
        _sleeper = previous
