"""Paired tests for release comparison: McNemar on matched pass/fail outcomes."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's exact test on the discordant pairs of two paired runs.

    ``b``: pairs that passed in A and failed in B (regressions);
    ``c``: pairs that failed in A and passed in B (fixes).
    """

    b: int
    c: int
    p_value: float


def mcnemar(b: int, c: int) -> McNemar:
    """Exact two-sided McNemar test: under no change, b ~ Binomial(b + c, 1/2)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return McNemar(b, c, 1.0)
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return McNemar(b, c, min(1.0, 2 * tail / 2**n))
