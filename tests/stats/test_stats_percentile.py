import numpy as np
import pytest

from simlab.stats import aptitude, percentile, unreliability


def test_deciles_of_0_to_100() -> None:
    scores = list(range(0, 101, 10))
    assert percentile(scores, 90) == pytest.approx(90.0)
    assert percentile(scores, 10) == pytest.approx(10.0)
    assert aptitude(scores) == pytest.approx(90.0)
    assert unreliability(scores) == pytest.approx(80.0)


def test_four_values_interpolate_between_order_statistics() -> None:
    # sorted [10, 20, 40, 80]; P90 at rank 0.9*3 = 2.7 -> 40 + 0.7*(80-40) = 68
    # P10 at rank 0.3 -> 10 + 0.3*(20-10) = 13
    values = [80, 10, 40, 20]
    assert percentile(values, 90) == pytest.approx(68.0)
    assert percentile(values, 10) == pytest.approx(13.0)
    assert percentile(values, 50) == pytest.approx(30.0)
    assert unreliability(values) == pytest.approx(55.0)


def test_single_score_has_no_spread() -> None:
    assert aptitude([42.0]) == 42.0
    assert unreliability([42.0]) == 0.0


def test_matches_numpy_linear() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = rng.uniform(0, 100, size=int(rng.integers(1, 12)))
        q = float(rng.uniform(0, 100))
        assert percentile(list(values), q) == pytest.approx(
            float(np.percentile(values, q, method="linear"))
        )


def test_bounds_and_empty() -> None:
    assert percentile([3, 1, 2], 0) == 1.0
    assert percentile([3, 1, 2], 100) == 3.0
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)
