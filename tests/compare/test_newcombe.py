"""Newcombe's intervals against published values (Newcombe 1998; Fagerland et al. 2017),
and the partly paired interval against both and by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.compare import (
    PairedTable,
    newcombe_interval,
    overlap_newcombe_interval,
    overlap_newcombe_p_value,
    paired_newcombe_interval,
)

# Cavo et al. 2012 in Fagerland, Lydersen & Laake (see below).
CAVO = PairedTable(both_pass=59, regressed=6, fixed=16, both_fail=80)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # Newcombe (1998), Stat Med 17:873, table II, method 10, as p1 - p2 = B - A
        ((48, 80), (56, 70), (0.0524, 0.3339)),
        ((3, 10), (9, 10), (0.1705, 0.8090)),
        ((2, 7), (6, 7), (0.0582, 0.8062)),
        ((0, 29), (5, 56), (-0.0381, 0.1926)),
    ],
)
def test_independent_matches_newcombe_1998(
    a: tuple[int, int], b: tuple[int, int], expected: tuple[float, float]
) -> None:
    lo, hi = newcombe_interval(a[0], a[1], b[0], b[1])
    assert lo == pytest.approx(expected[0], abs=5e-5)
    assert hi == pytest.approx(expected[1], abs=5e-5)


def test_independent_is_antisymmetric_and_needs_data() -> None:
    lo, hi = newcombe_interval(56, 70, 48, 80)  # A and B swapped: the interval negates
    assert (lo, hi) == pytest.approx((-0.3339, -0.0524), abs=5e-5)
    with pytest.raises(ValueError):
        newcombe_interval(0, 0, 1, 2)


def test_paired_matches_published_cavo_example() -> None:
    # Cavo et al. 2012 in Fagerland, Lydersen & Laake: table [[59, 6], [16, 80]],
    # before - after = -0.0621 (-0.1186 to -0.0046); here A = before, B = after.
    table = PairedTable(both_pass=59, regressed=6, fixed=16, both_fail=80)
    assert table.n == 161
    assert (table.passed_a, table.passed_b) == (65, 75)
    assert table.delta == pytest.approx(10 / 161)
    lo, hi = paired_newcombe_interval(table)
    assert lo == pytest.approx(0.0046, abs=5e-5)
    assert hi == pytest.approx(0.1186, abs=5e-5)


def test_paired_without_correlation_equals_the_independent_interval() -> None:
    # ad - bc = 1*1 - 1*1 = 0, within [0, n/2]: phi = 0, so the paired interval is
    # the independent one on the same margins (2/4 vs 2/4).
    table = PairedTable(1, 1, 1, 1)
    assert paired_newcombe_interval(table) == pytest.approx(newcombe_interval(2, 4, 2, 4))


def test_paired_correlation_narrows_the_interval() -> None:
    # Same margins (50/100 -> 60/100); strongly concordant pairs give a narrower interval.
    concordant = paired_newcombe_interval(PairedTable(50, 0, 10, 40))
    independent = newcombe_interval(50, 100, 60, 100)
    assert concordant[1] - concordant[0] < independent[1] - independent[0]
    assert concordant[0] > 0 > independent[0]  # the paired view sees the gain


def test_paired_table_counts_and_mcnemar() -> None:
    table = PairedTable()
    for a, b in [(True, True), (True, False), (True, False), (False, True), (False, False)]:
        table = table.add(a, b)
    assert table == PairedTable(1, 2, 1, 1)
    assert table.delta == pytest.approx(-1 / 5)
    # exact McNemar: b=2, c=1, n=3: 2 * P(X <= 1) = 2 * (1 + 3) / 8 = 1.0
    assert table.mcnemar().p_value == pytest.approx(1.0)
    assert PairedTable().delta is None
    with pytest.raises(ValueError):
        paired_newcombe_interval(PairedTable())


@pytest.mark.parametrize(
    ("a", "b", "table"),
    [((60, 100), (30, 100), PairedTable(30, 30, 0, 40)), ((65, 161), (75, 161), CAVO)],
)
def test_overlap_runs_from_independent_to_paired(
    a: tuple[int, int], b: tuple[int, int], table: PairedTable
) -> None:
    # Every key shared: the paired interval; none: the independent one, exactly.
    every = overlap_newcombe_interval(*a, *b, table)
    assert every == pytest.approx(paired_newcombe_interval(table), abs=1e-12)
    none = overlap_newcombe_interval(*a, *b, PairedTable())
    assert none == pytest.approx(newcombe_interval(*a, *b), abs=1e-12)


def test_overlap_narrows_as_more_keys_are_shared() -> None:
    # 200 sessions a side, 60% -> 50%; the shared keys are strongly concordant.
    widths = []
    for m in (0, 50, 100, 150, 200):
        shared = PairedTable(m * 5 // 10, m // 10, 0, m * 4 // 10)  # 60% -> 50% within them
        lo, hi = overlap_newcombe_interval(120, 200, 100, 200, shared)
        assert lo < -0.10 < hi
        widths.append(hi - lo)
    assert widths == sorted(widths, reverse=True) and widths[0] > 1.5 * widths[-1]


def test_overlap_rejects_shared_keys_that_are_not_in_the_samples() -> None:
    with pytest.raises(ValueError, match="part of both samples"):
        overlap_newcombe_interval(5, 10, 5, 10, PairedTable(6, 0, 0, 0))  # 6 shared passes > 5
    with pytest.raises(ValueError, match="part of both samples"):
        overlap_newcombe_interval(9, 10, 9, 10, PairedTable(0, 0, 0, 5))  # 9 passes in 5 others
    with pytest.raises(ValueError, match="sessions in both runs"):
        overlap_newcombe_interval(0, 0, 1, 2, PairedTable())


@pytest.mark.parametrize("joint", [(0.5, 0.1, 0.1, 0.3), (0.45, 0.15, 0.05, 0.35)])
def test_overlap_interval_covers_the_true_change_in_simulation(
    joint: tuple[float, float, float, float],
) -> None:
    # 150 keys in both samples, 50 more in each: outcomes per key drawn from the
    # joint (both pass, regressed, fixed, both fail); the change is p_B - p_A.
    rng = np.random.default_rng(7)
    p_a, p_b = joint[0] + joint[1], joint[0] + joint[2]
    trials, covered, covered_independent = 2000, 0, 0
    for _ in range(trials):
        both, regressed, fixed, fail = (int(k) for k in rng.multinomial(150, joint))
        shared = PairedTable(both, regressed, fixed, fail)
        passed_a = shared.passed_a + int(rng.binomial(50, p_a))
        passed_b = shared.passed_b + int(rng.binomial(50, p_b))
        lo, hi = overlap_newcombe_interval(passed_a, 200, passed_b, 200, shared)
        covered += lo <= p_b - p_a <= hi
        lo, hi = newcombe_interval(passed_a, 200, passed_b, 200)
        covered_independent += lo <= p_b - p_a <= hi
    # Near the nominal 95%; the independent interval ignores the correlation and overcovers.
    assert 0.93 <= covered / trials <= 0.975
    assert covered_independent / trials > 0.985


def _worst_unchanged_lower_bound(n: int) -> float:
    """Lowest lower bound of an unchanged group of n keys (no discordant pair), any pass count."""
    return min(paired_newcombe_interval(PairedTable(k, 0, 0, n - k))[0] for k in range(n + 1))


def test_an_unchanged_group_passes_the_shipped_drop_gates_from_the_documented_size() -> None:
    # The Gates docstring: a 5-point gate from 82 sessions, a 3-point gate from 139.
    assert _worst_unchanged_lower_bound(81) < -0.05 < _worst_unchanged_lower_bound(82)
    assert _worst_unchanged_lower_bound(138) < -0.03 < _worst_unchanged_lower_bound(139)


def test_partly_paired_p_value_agrees_with_the_interval() -> None:
    shared = PairedTable(both_pass=40, regressed=10, fixed=0, both_fail=40)
    p = overlap_newcombe_p_value(60, 100, 40, 90, shared)
    # at level 1 - p the interval touches 0; a little below it excludes 0, above it holds 0
    assert overlap_newcombe_interval(60, 100, 40, 90, shared, 1 - p * 1.01)[1] < 0
    assert overlap_newcombe_interval(60, 100, 40, 90, shared, 1 - p * 0.99)[1] > 0
    assert overlap_newcombe_p_value(50, 100, 45, 90, shared) == 1.0  # equal rates
