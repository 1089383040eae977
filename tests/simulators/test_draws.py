"""The simulators' frame-less draws give exactly what ``random.Random``'s methods give."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.simulators._draws import below, choose


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64), sizes=st.lists(st.integers(1, 300)))
def test_choose_and_below_draw_what_random_draws(seed: int, sizes: list[int]) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    for n in sizes:
        seq = tuple(range(n))
        assert choose(ours.getrandbits, seq) == theirs.choice(seq)
        assert below(ours.getrandbits, n) == theirs.randrange(n)
        assert 1 + below(ours.getrandbits, n) == theirs.randint(1, n)
    assert ours.getstate() == theirs.getstate()


def test_choosing_from_nothing_raises_as_random_does() -> None:
    with pytest.raises(IndexError):
        choose(random.Random(1).getrandbits, ())
