"""Newcombe's intervals against published values (Newcombe 1998; Fagerland et al. 2017)."""

from __future__ import annotations

import pytest

from simlab.compare import PairedTable, newcombe_interval, paired_newcombe_interval


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
