"""How a share and an estimate are written in reports and tables: value, interval, n."""

from __future__ import annotations

from simlab.store import Estimate, Share


def test_share_shows_its_wilson_interval_and_n() -> None:
    # 10 of 16: 62.5%; Wilson 95% [38.6%, 81.5%] (z = 1.96, by hand)
    share = Share.of(10, 16)
    assert share.shown() == "62.5% [38.6%, 81.5%]"
    assert share.shown(0) == "62% [39%, 82%]"
    assert share.shown(with_n=True) == "62.5% [38.6%, 81.5%] (n=16)"
    assert Share.of(0, 0).shown(with_n=True) == "-"


def test_estimate_shows_two_decimals_and_its_n() -> None:
    assert Estimate(value=0.6234, ci=(0.41, 0.8), n=16).shown() == "0.62 [0.41, 0.80]"
    assert Estimate(value=0.5, ci=None, n=3).shown(with_n=True) == "0.50 (n=3)"
    assert Estimate(value=None, ci=None, n=0).shown(with_n=True) == "-"
