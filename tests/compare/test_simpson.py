"""Simpson's paradox check from per-bucket counts."""

from __future__ import annotations

import pytest

from simlab.compare import newcombe_interval, simpson_check

ISSUE_A = {"2-4": (88, 96), "5-9": (61, 92), "10+": (22, 64)}
ISSUE_B = {"2-4": (170, 185), "5-9": (40, 60), "10+": (3, 15)}


def test_issue_example_does_not_warn_on_a_bucket_of_15_sessions() -> None:
    # 10+ moved -14.4 points against the overall +14.1, but on 3/15 sessions: its
    # interval holds 0, so the reversal is within noise and there is nothing to warn of.
    check = simpson_check(ISSUE_A, ISSUE_B)
    # By hand: A 171/252 = 67.86%, B 213/260 = 81.92%: overall +14.07 points.
    assert check.overall_a == pytest.approx(171 / 252)
    assert check.overall_b == pytest.approx(213 / 260)
    assert check.overall_delta == pytest.approx(0.14066, abs=1e-5)
    deltas = {b.name: b.delta for b in check.buckets}
    # 2-4: 91.89 - 91.67 = +0.23; 5-9: 66.67 - 66.30 = +0.36; 10+: 20.00 - 34.38 = -14.38.
    # (2-4 and 5-9 hold steady, they do not drop: only 10+ falls.)
    assert deltas["2-4"] == pytest.approx(170 / 185 - 88 / 96)
    assert deltas["2-4"] == pytest.approx(0.00225, abs=1e-5)
    assert deltas["5-9"] == pytest.approx(0.00362, abs=1e-5)
    assert deltas["10+"] == pytest.approx(-0.14375, abs=1e-5)
    # Mix: A 96/252 = 38.1%, 92/252 = 36.5%, 64/252 = 25.4%;
    #      B 185/260 = 71.2%, 60/260 = 23.1%, 15/260 = 5.8%.
    shares = {b.name: (round(b.share_a, 3), round(b.share_b, 3)) for b in check.buckets}
    assert shares == {"2-4": (0.381, 0.712), "5-9": (0.365, 0.231), "10+": (0.254, 0.058)}
    # At A's mix: .381*.00225 + .365*.00362 + .254*(-.14375) = -3.43 points.
    assert check.at_a_mix == pytest.approx(-0.0343, abs=1e-4)
    ten = check.buckets[2]
    assert ten.ci == newcombe_interval(22, 64, 3, 15)
    assert ten.ci is not None and ten.ci[0] < 0 < ten.ci[1]
    assert not check.warn and check.message == ""


def test_issue_example_with_four_times_the_sessions_warns() -> None:
    # The same rates on 4x the sessions: 10+'s interval now excludes 0 below.
    a = {k: (p * 4, n * 4) for k, (p, n) in ISSUE_A.items()}
    b = {k: (p * 4, n * 4) for k, (p, n) in ISSUE_B.items()}
    check = simpson_check(a, b)
    lo, hi = newcombe_interval(88, 256, 12, 60)
    assert hi < 0
    assert check.warn
    assert "+14.1 points" in check.message
    assert f"10+ -14.4 points [{lo * 100:+.1f}, {hi * 100:+.1f}]" in check.message
    assert "(their 95% intervals exclude 0)" in check.message
    assert "2-4 38% -> 71%" in check.message
    assert "At A's mix the change is -3.4 points" in check.message


def test_classic_reversal_warns_only_for_the_supported_bucket() -> None:
    # A: 90/100 easy, 300/900 hard (39%); B: 800/900 easy, 20/100 hard (82%). Both drop:
    # easy by 1.1 points (interval holds 0), hard by 13.3 (interval below 0).
    check = simpson_check(
        {"easy": (90, 100), "hard": (300, 900)}, {"easy": (800, 900), "hard": (20, 100)}
    )
    assert check.overall_delta == pytest.approx(0.82 - 0.39)
    assert all((b.delta or 0) < 0 for b in check.buckets)
    assert check.warn
    assert "hard -13.3 points" in check.message and "easy" not in check.message.split("moved")[0]


def test_the_point_estimates_alone_never_warn() -> None:
    # The same reversal at a tenth of the sessions: both intervals hold 0.
    check = simpson_check({"easy": (9, 10), "hard": (30, 90)}, {"easy": (80, 90), "hard": (2, 10)})
    assert all((b.delta or 0) < 0 for b in check.buckets)
    assert not check.warn


def test_given_intervals_decide_the_support() -> None:
    # The comparison passes its own (paired) intervals; they replace the independent ones.
    a, b = {"s": (90, 100), "l": (10, 100)}, {"s": (180, 200), "l": (2, 40)}
    assert not simpson_check(a, b).warn  # l: 10% -> 5%, independent interval holds 0
    supported = simpson_check(a, b, intervals={"s": (-0.01, 0.01), "l": (-0.09, -0.01)})
    assert supported.warn and "l -5.0 points [-9.0, -1.0]" in supported.message


def test_same_mix_never_warns() -> None:
    # Same shares in A and B: the overall change is a weighted mean of the bucket changes.
    check = simpson_check({"s": (50, 100), "l": (50, 100)}, {"s": (60, 100), "l": (40, 100)})
    assert check.overall_delta == pytest.approx(0.0)
    assert not check.warn and check.message == ""


def test_overall_within_the_bucket_range_does_not_warn() -> None:
    # Buckets +10 and -20 points, overall -5: inside the range, nothing hidden by the mix.
    check = simpson_check({"s": (50, 100), "l": (60, 100)}, {"s": (60, 100), "l": (40, 100)})
    assert check.overall_delta == pytest.approx(-0.05)
    assert not check.warn


def test_mix_driven_change_in_the_same_direction_does_not_warn() -> None:
    # Every bucket up, overall up more than any bucket (mix): no bucket moved the other way.
    check = simpson_check({"s": (90, 100), "l": (10, 100)}, {"s": (190, 200), "l": (6, 50)})
    assert check.overall_delta is not None and check.overall_delta > 0.12
    assert not check.warn


def test_buckets_missing_from_a_run_are_left_out() -> None:
    check = simpson_check({"s": (5, 10)}, {"s": (5, 10), "l": (0, 5)}, order=["s", "l", "x"])
    assert [b.name for b in check.buckets] == ["s", "l", "x"]
    assert check.buckets[1].delta is None and check.buckets[2].share_a == 0.0
    assert check.at_a_mix == pytest.approx(0.0)
    with pytest.raises(ValueError):
        simpson_check({"s": (3, 2)}, {"s": (1, 2)})
