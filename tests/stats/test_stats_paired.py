"""McNemar's exact test: hand-computed tails, large counts, and its false-alarm rate."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from simlab.stats import mcnemar


def exact_two_sided(b: int, c: int) -> float:
    """2 * P(X <= min(b, c)), X ~ Binomial(b + c, 1/2), in exact integers (capped at 1)."""
    n, k = b + c, min(b, c)
    term = tail = 1
    for i in range(k):  # C(n, i + 1) = C(n, i) * (n - i) / (i + 1), exact at each step
        term = term * (n - i) // (i + 1)
        tail += term
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (1, 9, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2^10
        (0, 3, 2 / 8),  # 2 * C(3,0) / 2^3
        (2, 6, 2 * (1 + 8 + 28) / 256),  # 2 * (C(8,0) + C(8,1) + C(8,2)) / 2^8
        (6, 2, 2 * (1 + 8 + 28) / 256),  # two-sided: symmetric in b and c
        (3, 3, 1.0),  # 2 * 42/64 > 1: capped
        (0, 0, 1.0),
    ],
)
def test_hand_computed(b: int, c: int, p: float) -> None:
    assert mcnemar(b, c).p_value == pytest.approx(p, rel=1e-12)
    assert exact_two_sided(b, c) == pytest.approx(p, rel=1e-12)


@pytest.mark.timeout(60)  # a hang guard: the old sum of C(n, i) took minutes at 60,000 pairs
@pytest.mark.parametrize(("b", "c"), [(5900, 6100), (5850, 6150), (29_700, 30_300)])
def test_twelve_thousand_discordant_pairs_and_more(b: int, c: int) -> None:
    result = mcnemar(b, c)
    assert (result.b, result.c) == (b, c)
    assert result.p_value == pytest.approx(exact_two_sided(b, c), rel=1e-9)
    assert 0.0 < result.p_value < 1.0


def test_false_alarm_rate_under_no_change_is_at_most_its_level() -> None:
    # Under no change each discordant pair is a fair coin: b ~ Binomial(n, 1/2).
    rng = np.random.default_rng(20261201)
    n = 40
    draws = rng.binomial(n, 0.5, size=4000)
    alarms = sum(mcnemar(int(b), n - int(b)).p_value < 0.05 for b in draws)
    # The exact test is conservative: its true size at n=40 is 2 * P(X <= 13) = 0.0385.
    size = exact_two_sided(13, n - 13)
    assert size == pytest.approx(0.0385, abs=1e-4)
    rate = alarms / len(draws)
    assert rate <= 0.05
    assert rate == pytest.approx(size, abs=0.01)  # 4 binomial s.e. of a 4,000-draw rate
