"""The simulators' frame-less draws give exactly what ``random.Random``'s methods give."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.simulators._draws import below, choose, seeded


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


@settings(max_examples=300, deadline=None)
@given(seed=st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=8)))
def test_a_seeded_generator_is_random_random_of_the_seed(seed: int) -> None:
    ours, theirs = seeded(seed), random.Random(seed)
    assert type(ours) is random.Random
    assert ours.getstate() == theirs.getstate()
    assert [ours.random() for _ in range(3)] == [theirs.random() for _ in range(3)]
    assert ours.gauss(0, 1) == theirs.gauss(0, 1)
