import pytest

from simlab.stats import kaplan_meier, log_rank, mcnemar


def test_kaplan_meier_matches_a_hand_computed_censored_example() -> None:
    # times 1,2,2,3,4; the second 2 and the 4 are censored.
    # S(1) = 4/5 = .8; S(2) = .8 * 3/4 = .6 (the censored 2 leaves after); S(3) = .6 * 1/2 = .3
    km = kaplan_meier([1, 2, 2, 3, 4], [True, True, False, True, False])
    assert [(s.t, s.at_risk, s.events, s.censored) for s in km.steps] == [
        (1, 5, 1, 0),
        (2, 4, 1, 1),
        (3, 2, 1, 0),
        (4, 1, 0, 1),
    ]
    assert [s.survival for s in km.steps] == pytest.approx([0.8, 0.6, 0.3, 0.3])
    assert km.median == 3.0
    assert km.survival_at(2.5) == pytest.approx(0.6)
    # Greenwood at t=1: 1/(5*4) = .05; log-log se = sqrt(.05)/|ln .8| = 1.00209
    # lower = .8 ** exp(1.95996 * 1.00209) = .20381
    lo, hi = km.steps[0].ci
    assert lo == pytest.approx(0.20381, abs=1e-5)
    assert hi == pytest.approx(0.96918, abs=1e-5)


def test_all_censored_never_reaches_median() -> None:
    km = kaplan_meier([3, 3, 3], [False, False, False])
    assert km.median is None and km.events == 0
    assert km.steps[-1].survival == 1.0


def test_log_rank_hand_computed() -> None:
    # event times 1..5: E_A = .5 + .4 + .25 = 1.15, V = .25 + .24 + .1875 = .6775
    # chi2 = (3 - 1.15)^2 / .6775 = 5.05166; p = erfc(sqrt(chi2/2)) = .02460
    lr = log_rank([1, 2, 3], [True, True, True], [4, 5, 6], [True, True, False])
    assert lr.observed == (3, 2)
    assert lr.expected == pytest.approx((1.15, 3.85))
    assert lr.chi2 == pytest.approx(5.05166, abs=1e-5)
    assert lr.p_value == pytest.approx(0.02460, abs=1e-5)


def test_log_rank_identical_groups_is_not_significant() -> None:
    lr = log_rank([1, 2, 3], [True] * 3, [1, 2, 3], [True] * 3)
    assert lr.chi2 == pytest.approx(0.0)
    assert lr.p_value == pytest.approx(1.0)


def test_mcnemar_exact() -> None:
    # b=1, c=9: 2 * (C(10,0) + C(10,1)) / 2^10 = 22/1024
    assert mcnemar(1, 9).p_value == pytest.approx(22 / 1024)
    assert mcnemar(0, 0).p_value == 1.0
    assert mcnemar(5, 5).p_value == 1.0


def test_median_at_an_exact_half_plateau_ignores_float_rounding() -> None:
    # 24 subjects, one event at each of t = 1..12: S(12) = 23/24 * 22/23 * ... * 12/13 = 1/2
    # exactly, but the float product is 0.5000000000000001. The median is the first t
    # with S(t) <= 1/2: 12, not the next event time.
    times = list(range(1, 25))
    km = kaplan_meier(times, [True] * 24)
    assert km.steps[11].survival == pytest.approx(0.5, abs=1e-15)
    assert km.median == 12.0
    # The same plateau with the later half censored: still 12.
    assert kaplan_meier(times, [True] * 12 + [False] * 12).median == 12.0
    # Just above one half stays above: 13 of 25 left after 12 events is 0.52.
    assert kaplan_meier(list(range(1, 26)), [True] * 25).median == 13.0
