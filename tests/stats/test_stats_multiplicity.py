"""Holm's adjustment and Fisher's exact test against hand-computed values."""

from __future__ import annotations

import math

import pytest

from simlab.stats import fisher_exact, holm


def test_holm_on_four_p_values_by_hand() -> None:
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04,
    # raised to the running max 0.06); returned in the input's order
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_keeps_ties_and_handles_the_empty_family() -> None:
    assert holm([0.5, 0.5, 0.9]) == pytest.approx([1.0, 1.0, 1.0])
    assert holm([0.02, 0.02]) == pytest.approx([0.04, 0.04])
    assert holm([0.2]) == [0.2]
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


def test_fisher_tea_tasting_by_hand() -> None:
    # 3/4 vs 1/4: tables with A passes k = 0..4 of 4 total passes have probabilities
    # C(4,k) C(4,4-k) / C(8,4) = 1, 16, 36, 16, 1 over 70; observed k = 3 (16/70):
    # p = (1 + 16 + 16 + 1) / 70 = 34/70
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert fisher_exact(1, 4, 3, 4) == pytest.approx(34 / 70)


def test_fisher_extremes_and_degenerate_tables() -> None:
    # 5/5 vs 0/5: only the two extreme tables, each 1/C(10,5)
    assert fisher_exact(5, 5, 0, 5) == pytest.approx(2 / math.comb(10, 5))
    assert fisher_exact(0, 0, 3, 5) == 1.0  # an empty sample says nothing
    assert fisher_exact(4, 4, 6, 6) == 1.0  # every outcome a pass
    with pytest.raises(ValueError):
        fisher_exact(5, 4, 1, 4)


def test_fisher_matches_a_large_table_computed_with_exact_integers() -> None:
    pa, na, pb, nb = 717, 721, 708, 713
    total = math.comb(na + nb, pa + pb)
    probs = [math.comb(na, k) * math.comb(nb, pa + pb - k) for k in range(0, na + 1)]
    observed = math.comb(na, pa) * math.comb(nb, pb)
    expected = sum(p for p in probs if p <= observed) / total
    assert fisher_exact(pa, na, pb, nb) == pytest.approx(expected, rel=1e-9)
