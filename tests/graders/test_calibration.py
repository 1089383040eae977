"""Calibration statistics against hand-computed figures."""

from __future__ import annotations

import math

import pytest

from simlab.graders import CalibrationError, CalibrationReport, calibrate, rogan_gladen


def _labelled(
    human_pass_judge_pass: int,
    human_pass_judge_fail: int,
    human_fail_judge_fail: int,
    human_fail_judge_pass: int,
) -> tuple[list[tuple[str, bool]], dict[str, bool]]:
    labels: list[tuple[str, bool]] = []
    verdicts: dict[str, bool] = {}
    groups = [
        (human_pass_judge_pass, True, True),
        (human_pass_judge_fail, True, False),
        (human_fail_judge_fail, False, False),
        (human_fail_judge_pass, False, True),
    ]
    for g, (count, human, judge) in enumerate(groups):
        for i in range(count):
            key = f"p/g/full/{g * 1000 + i}"
            labels.append((key, human))
            verdicts[key] = judge
    return labels, verdicts


def _hand_example(seed: int = 7, n_boot: int = 4000) -> CalibrationReport:
    # 40 human passes, the judge passed 36; 20 human fails, the judge failed 16.
    labels, verdicts = _labelled(36, 4, 16, 4)
    run = [True] * 600 + [False] * 400  # the judge passed 60% of the run
    return calibrate(labels, verdicts, run, seed, n_boot=n_boot)


def test_hand_computed_rates_and_corrected_estimate() -> None:
    r = _hand_example()
    # A failure is the positive class: TPR = judge fails among the 20 human fails.
    assert (r.tpr.successes, r.tpr.n, r.tpr.value) == (16, 20, 0.8)
    assert (r.tnr.successes, r.tnr.n, r.tnr.value) == (36, 40, 0.9)
    assert (r.agreement.successes, r.agreement.n) == (52, 60)
    assert (r.raw_pass_rate.successes, r.raw_pass_rate.n, r.raw_pass_rate.value) == (600, 1000, 0.6)
    # corrected pass rate = (p_obs + TPR - 1) / (TPR + TNR - 1) = (0.6 + 0.8 - 1) / 0.7
    assert r.corrected == pytest.approx(0.4 / 0.7, abs=1e-12)
    # Wilson 95% for 36/40: center (0.9 + z²/80) / (1 + z²/40), half-width as by hand.
    assert r.tnr.ci == pytest.approx((0.76948, 0.96042), abs=1e-4)
    assert r.tpr.ci == pytest.approx((0.58398, 0.91934), abs=1e-4)
    assert r.raw_pass_rate.ci == pytest.approx((0.56931, 0.62993), abs=1e-4)
    # kappa: p_o = 52/60; both raters pass 40 of 60, so p_e = (2/3)² + (1/3)² = 5/9;
    # (52/60 - 5/9) / (4/9) = 0.7
    assert r.kappa.kappa == pytest.approx(0.7) and r.kappa.n == 60


def test_catching_a_real_failure_is_the_true_positive() -> None:
    # 100 labelled sessions, 40 human fails and 60 human passes: the judge fails
    # 36 of the 40 (failures caught) and passes 50 of the 60.
    labels, verdicts = _labelled(50, 10, 36, 4)
    r = calibrate(labels, verdicts, [True] * 54 + [False] * 46, seed=0, n_boot=200)
    assert (r.tpr.successes, r.tpr.n) == (36, 40)  # TPR 0.90
    assert (r.tnr.successes, r.tnr.n) == (50, 60)  # TNR 0.83
    # (0.54 + 0.9 - 1) / (0.9 + 50/60 - 1)
    assert r.corrected == pytest.approx(0.44 / (0.9 + 50 / 60 - 1))
    assert r.as_json()["positive"] == "fail"


def test_bootstrap_interval_matches_the_delta_method_width() -> None:
    r = _hand_example()
    theta, j = 0.4 / 0.7, 0.7
    # Var ≈ [Var(p) + θ² Var(TPR) + (1-θ)² Var(TNR)] / J², each a binomial variance.
    var = (0.6 * 0.4 / 1000 + theta**2 * 0.9 * 0.1 / 40 + (1 - theta) ** 2 * 0.8 * 0.2 / 20) / j**2
    delta_width = 2 * 1.959964 * math.sqrt(var)  # ≈ 0.277
    lo, hi = r.corrected_ci
    assert lo < 0.4 / 0.7 < hi
    assert hi - lo == pytest.approx(delta_width, rel=0.2)
    assert r.undefined_share == 0.0


def test_bootstrap_is_seeded() -> None:
    assert _hand_example(seed=3).corrected_ci == _hand_example(seed=3).corrected_ci
    assert _hand_example(seed=3).corrected_ci != _hand_example(seed=4).corrected_ci


def test_perfect_judge_leaves_the_rate_and_gives_the_binomial_interval() -> None:
    labels, verdicts = _labelled(30, 0, 30, 0)
    r = calibrate(labels, verdicts, [True] * 600 + [False] * 400, seed=1, n_boot=8000)
    assert r.corrected == pytest.approx(0.6)
    half = 1.959964 * math.sqrt(0.6 * 0.4 / 1000)  # ≈ 0.0304
    assert r.corrected_ci == pytest.approx((0.6 - half, 0.6 + half), abs=0.004)


def test_chance_judge_has_no_estimate_and_an_uninformative_interval() -> None:
    labels, verdicts = _labelled(10, 10, 10, 10)  # TPR = TNR = 0.5
    r = calibrate(labels, verdicts, [True, False] * 50, seed=0, n_boot=500)
    assert r.corrected is None
    assert r.corrected_ci == (0.0, 1.0)
    assert r.undefined_share > 0.4


def test_empty_group_is_not_an_estimate() -> None:
    labels, verdicts = _labelled(5, 0, 0, 0)  # no human fails: TPR unknown
    r = calibrate(labels, verdicts, [True] * 5, seed=0)
    assert r.tpr.value is None and r.tpr.ci == (0.0, 1.0)
    assert r.corrected is None and r.corrected_ci == (0.0, 1.0)


@pytest.mark.parametrize(
    ("p_obs", "tpr", "tnr", "want"),
    [
        (0.6, 0.8, 0.9, 0.4 / 0.7),  # (0.6 + 0.8 - 1) / (0.8 + 0.9 - 1)
        (0.6, 0.9, 0.8, 0.5 / 0.7),
        (0.1, 0.9, 0.8, 0.0),  # below the false-pass floor: clipped to 0
        (0.95, 0.9, 0.8, 1.0),  # above TPR: clipped to 1
        (0.5, 1.0, 1.0, 0.5),
        (0.5, 0.5, 0.5, None),
        (0.5, 0.3, 0.4, None),
    ],
)
def test_rogan_gladen(p_obs: float, tpr: float, tnr: float, want: float | None) -> None:
    got = rogan_gladen(p_obs, tpr, tnr)
    assert got == (None if want is None else pytest.approx(want))


def test_bad_inputs() -> None:
    with pytest.raises(CalibrationError, match="more than once"):
        calibrate([("a", True), ("a", False)], {"a": True}, [True], seed=0)
    with pytest.raises(CalibrationError, match="'b' has no judge verdict"):
        calibrate([("b", True)], {"a": True}, [True], seed=0)
    with pytest.raises(ValueError, match="n_boot"):
        calibrate([], {}, [], seed=0, n_boot=0)


def test_as_json_carries_every_figure() -> None:
    data = _hand_example(n_boot=200).as_json()
    assert data["tnr"] == {
        "value": 0.9,
        "successes": 36,
        "n": 40,
        "ci": pytest.approx([0.7695, 0.9604], abs=1e-4),
    }
    assert data["kappa"]["value"] == pytest.approx(0.7) and data["kappa"]["n"] == 60
    assert data["corrected"] == pytest.approx(0.5714, abs=1e-4)
    assert data["n_boot"] == 200 and data["seed"] == 7 and "Rogan-Gladen" in data["method"]
