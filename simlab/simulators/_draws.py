"""``random.Random``'s integer draws without their Python frames, to the bit.

``Random.choice(seq)`` is ``seq[rng._randbelow(len(seq))]`` and ``Random.randint(a, b)``
is ``a + rng._randbelow(b - a + 1)``; ``_randbelow`` draws ``n.bit_length()`` bits until
they fall below ``n``. The simulated user draws a few a turn and its plan a few a
session: the same draws here save two or three Python frames each.
``tests/simulators/test_draws.py`` holds them to ``Random``'s own methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

_T = TypeVar("_T")

GetRandBits = Callable[[int], int]
"""A ``random.Random``'s bound ``getrandbits``."""


def below(getrandbits: GetRandBits, n: int) -> int:
    """``rng._randbelow(n)`` for the ``rng`` whose ``getrandbits`` this is (``n`` > 0)."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def choose(getrandbits: GetRandBits, seq: Sequence[_T]) -> _T:
    """``rng.choice(seq)`` for the ``rng`` whose ``getrandbits`` this is."""
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return seq[r]
