import math

import pytest

from simlab.spec import Bucket
from simlab.stats import bucket_of, pass_hat_k, pass_hat_k_by_task, pass_hat_k_curve


def test_pass_hat_k_hand_values() -> None:
    # C(3,2)/C(5,2) = 3/10
    assert pass_hat_k(3, 5, 2) == pytest.approx(0.3)
    assert pass_hat_k(3, 5, 1) == pytest.approx(0.6)
    assert pass_hat_k(3, 5, 4) == 0.0
    assert pass_hat_k(5, 5, 5) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(3, 5, 0)
    with pytest.raises(ValueError):
        pass_hat_k(6, 5, 1)


def test_curve_matches_combinations() -> None:
    for c, n in [(0, 4), (3, 5), (7, 9), (40, 50)]:
        curve = pass_hat_k_curve(c, n)
        assert len(curve) == n
        for k in range(1, n + 1):
            assert curve[k - 1] == pytest.approx(math.comb(c, k) / math.comb(n, k))


def test_by_task_averages_up_to_smallest_n() -> None:
    outcomes = {
        "a": [True, True, True, False, False],  # 3/5: k1 .6 k2 .3 k3 .1
        "b": [True, False, True],  # 2/3: k1 2/3 k2 1/3 k3 0
    }
    got = pass_hat_k_by_task(outcomes)
    assert list(got) == [1, 2, 3]
    assert got[1] == pytest.approx((0.6 + 2 / 3) / 2)
    assert got[2] == pytest.approx((0.3 + 1 / 3) / 2)
    assert got[3] == pytest.approx((0.1 + 0.0) / 2)
    assert pass_hat_k_by_task({}) == {}
    assert pass_hat_k_by_task({"a": []}) == {}


def test_bucket_of() -> None:
    buckets = [
        Bucket(name="2-4", min=2, max=4),
        Bucket(name="5-9", min=5, max=9),
        Bucket(name="10+", min=10),
    ]
    assert bucket_of(1, buckets) is None
    assert bucket_of(2, buckets) == "2-4"
    assert bucket_of(4, buckets) == "2-4"
    assert bucket_of(5, buckets) == "5-9"
    assert bucket_of(9, buckets) == "5-9"
    assert bucket_of(10, buckets) == "10+"
    assert bucket_of(300, buckets) == "10+"
