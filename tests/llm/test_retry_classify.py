"""classify (the table), retry-after parsing and the backoff policy."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from simlab.llm import (
    ProviderConnectionError,
    ProviderStatusError,
    RetryDecision,
    RetryPolicy,
    classify,
    classify_exception,
    parse_retry_after,
)

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("status", "headers", "kind", "expected"),
    [
        (408, {}, None, RetryDecision(True, None, "http_408")),
        (409, {}, None, RetryDecision(True, None, "http_409")),
        (429, {"retry-after": "7"}, None, RetryDecision(True, 7.0, "http_429")),
        (429, {"Retry-After": "0.5"}, None, RetryDecision(True, 0.5, "http_429")),
        (
            429,
            {"retry-after-ms": "1500", "retry-after": "9"},
            None,
            RetryDecision(True, 1.5, "http_429"),
        ),
        (500, {}, None, RetryDecision(True, None, "http_500")),
        (502, {}, None, RetryDecision(True, None, "http_502")),
        (503, {"retry-after": "soon"}, None, RetryDecision(True, None, "http_503")),
        (529, {"retry-after": "2"}, None, RetryDecision(True, 2.0, "http_529")),
        (400, {"retry-after": "2"}, None, RetryDecision(False, None, "http_400")),
        (401, {}, None, RetryDecision(False, None, "http_401")),
        (403, {}, None, RetryDecision(False, None, "http_403")),
        (404, {}, None, RetryDecision(False, None, "http_404")),
        (413, {}, None, RetryDecision(False, None, "http_413")),
        (422, {}, None, RetryDecision(False, None, "http_422")),
        (None, {}, "timeout", RetryDecision(True, None, "timeout")),
        (None, {}, "connection", RetryDecision(True, None, "connection")),
        (200, {}, "malformed", RetryDecision(True, None, "malformed")),
        (None, {}, None, RetryDecision(False, None, "unknown")),
        (None, {}, "cosmic_ray", RetryDecision(False, None, "cosmic_ray")),
    ],
)
def test_classify_table(
    status: int | None, headers: dict[str, str], kind: str | None, expected: RetryDecision
) -> None:
    assert classify(status, headers, kind, now=NOW) == expected


def test_retry_after_http_date_is_relative_to_now() -> None:
    when = datetime.fromtimestamp(NOW + 30, tz=UTC)
    headers = {"retry-after": format_datetime(when, usegmt=True)}
    assert parse_retry_after(headers, now=NOW) == pytest.approx(30.0)
    assert classify(429, headers, None, now=NOW).after_s == pytest.approx(30.0)
    # A date in the past means "now", not a negative wait.
    assert parse_retry_after(headers, now=NOW + 100) == 0.0
    assert parse_retry_after({"retry-after": "-3"}) == 0.0
    assert parse_retry_after({}) is None


def test_classify_exception_reads_provider_errors() -> None:
    err = ProviderStatusError("x", status=429, headers={"Retry-After": "3"})
    assert classify_exception(err) == RetryDecision(True, 3.0, "http_429")
    assert classify_exception(ProviderConnectionError("gone")).reason == "connection"
    assert classify_exception(KeyError("k")) == RetryDecision(False, None, "KeyError")


def test_backoff_grows_with_jitter_and_caps() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=5.0)
    rng = random.Random(0)
    no_hint = RetryDecision(True, None, "http_500")
    waits = [policy.wait_s(no_hint, attempt, rng) for attempt in range(1, 8)]
    # Step n is min(cap, base*2**(n-1)) = 1, 2, 4, 5, 5, 5, 5; the wait lies in [step/2, step].
    steps = [1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 5.0]
    for wait, step in zip(waits, steps, strict=True):
        assert step / 2 <= wait <= step
    assert max(waits) <= 5.0


def test_retry_after_is_honoured_up_to_its_cap() -> None:
    policy = RetryPolicy(max_retry_after_s=10.0)
    rng = random.Random(0)
    assert policy.wait_s(RetryDecision(True, 4.0, "http_429"), 1, rng) == 4.0
    assert policy.wait_s(RetryDecision(True, 600.0, "http_429"), 1, rng) == 10.0
