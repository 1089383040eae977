"""Survival analysis for brittleness: Kaplan-Meier with intervals, and the log-rank test.

A brittleness observation is the number of cumulative perturbations a session
took to fail (an event), or the number it survived when it never failed
(censored). Censored sessions stay in the risk set up to their time, which is
what a plain "median k at failure" would get wrong.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

# S is a float product of (1 - d/n) factors, so an exact 1/2 can land an ulp above
# (23/24 * ... * 12/13 = 0.5000000000000001); R's survival package compares quantiles
# with the same tolerance, sqrt(machine epsilon).
_MEDIAN_TOLERANCE = math.sqrt(sys.float_info.epsilon)


@dataclass(frozen=True, slots=True)
class SurvivalStep:
    """The survival curve just after time ``t``."""

    t: int
    at_risk: int
    events: int
    censored: int
    survival: float
    ci: tuple[float, float]


@dataclass(frozen=True, slots=True)
class KaplanMeier:
    """A Kaplan-Meier estimate: one step per distinct time, plus its summaries."""

    n: int
    events: int
    steps: list[SurvivalStep]
    median: float | None  # None when the curve never reaches 0.5

    def survival_at(self, t: float) -> float:
        """S(t): the share expected to survive past ``t``."""
        s = 1.0
        for step in self.steps:
            if step.t > t:
                break
            s = step.survival
        return s


def kaplan_meier(times: Sequence[int], events: Sequence[bool], level: float = 0.95) -> KaplanMeier:
    """Kaplan-Meier estimate with Greenwood log-log intervals.

    Args:
        times: per subject, the time of the event or of censoring.
        events: per subject, True for an observed event, False for censored.
        level: the interval's confidence level.
    """
    if len(times) != len(events):
        raise ValueError("times and events must have the same length")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    at_risk = len(times)
    survival, greenwood = 1.0, 0.0
    steps: list[SurvivalStep] = []
    median: float | None = None
    for t in sorted(set(times)):
        d = sum(1 for ti, e in zip(times, events, strict=True) if ti == t and e)
        c = sum(1 for ti, e in zip(times, events, strict=True) if ti == t and not e)
        if d:
            survival *= 1 - d / at_risk
            if at_risk > d:
                greenwood += d / (at_risk * (at_risk - d))
        if median is None and survival <= 0.5 + _MEDIAN_TOLERANCE:
            median = float(t)
        steps.append(SurvivalStep(t, at_risk, d, c, survival, _loglog_ci(survival, greenwood, z)))
        at_risk -= d + c
    return KaplanMeier(len(times), sum(bool(e) for e in events), steps, median)


def _loglog_ci(s: float, greenwood: float, z: float) -> tuple[float, float]:
    # The log(-log S) transform keeps the interval inside [0, 1].
    if s <= 0.0 or s >= 1.0 or greenwood == 0.0:
        return (s, s)
    se = math.sqrt(greenwood) / abs(math.log(s))
    lo = s ** math.exp(z * se)
    hi = s ** math.exp(-z * se)
    return (lo, hi)


@dataclass(frozen=True, slots=True)
class LogRank:
    """The log-rank test of two survival curves."""

    chi2: float
    p_value: float
    observed: tuple[int, int]
    expected: tuple[float, float]


def log_rank(
    times_a: Sequence[int],
    events_a: Sequence[bool],
    times_b: Sequence[int],
    events_b: Sequence[bool],
) -> LogRank:
    """Log-rank test (Mantel-Cox, 1 degree of freedom) that A and B share one curve."""
    a = list(zip(times_a, events_a, strict=True))
    b = list(zip(times_b, events_b, strict=True))
    o_a = e_a = var = 0.0
    for t in sorted({t for t, e in a + b if e}):
        n_a = sum(1 for ti, _ in a if ti >= t)  # at risk just before t
        n_b = sum(1 for ti, _ in b if ti >= t)
        d_a = sum(1 for ti, e in a if ti == t and e)
        d = d_a + sum(1 for ti, e in b if ti == t and e)
        n = n_a + n_b
        o_a += d_a
        e_a += d * n_a / n
        if n > 1:
            var += n_a * n_b * d * (n - d) / (n * n * (n - 1))
    total_events = sum(1 for _, e in a + b if e)
    chi2 = (o_a - e_a) ** 2 / var if var > 0 else 0.0
    from scipy.special import chdtrc  # here: ~0.25 s to import, paid by brittleness only

    p = float(chdtrc(1, chi2))  # chi-square survival function, 1 df
    return LogRank(chi2, p, (int(o_a), int(total_events - o_a)), (e_a, total_events - e_a))
