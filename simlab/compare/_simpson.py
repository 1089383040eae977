"""Simpson's paradox between two runs: when the overall change is the mix, not the buckets.

With each bucket's share of sessions the same in A and B, the overall change
in pass rate is a weighted mean of the per-bucket changes, so it lies between
the smallest and the largest of them. When it lies outside that range, the
change in mix (say, B's users holding shorter conversations) moved the overall
figure beyond anything any bucket did; when, in addition, buckets moved the
other way, the overall figure hides them. That is the warning, given only when
a bucket that moved the other way did so beyond its noise: its interval for the
change excludes 0 on the side opposite the overall change. A point estimate on
the other side alone is what two runs of one agent show half the time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simlab.stats import newcombe_interval


@dataclass(frozen=True, slots=True)
class BucketShift:
    """One bucket's pass rates and share of sessions in A and B.

    Attributes:
        name: The bucket.
        passed_a: Passes in A.
        n_a: Sessions in A.
        passed_b: Passes in B.
        n_b: Sessions in B.
        share_a: The bucket's share of A's sessions (0 when A is empty).
        share_b: The bucket's share of B's sessions.
        ci: The interval of the bucket's change (None without sessions in both runs).
    """

    name: str
    passed_a: int
    n_a: int
    passed_b: int
    n_b: int
    share_a: float
    share_b: float
    ci: tuple[float, float] | None = None

    @property
    def delta(self) -> float | None:
        """``p_B - p_A``; None unless both runs have sessions in the bucket."""
        if self.n_a == 0 or self.n_b == 0:
            return None
        return self.passed_b / self.n_b - self.passed_a / self.n_a


@dataclass(frozen=True, slots=True)
class SimpsonCheck:
    """The overall change against the per-bucket changes.

    Attributes:
        buckets: Every bucket, in the order given.
        overall_a: A's overall pass rate (None when A is empty).
        overall_b: B's overall pass rate.
        at_a_mix: The overall change had B kept A's mix: the per-bucket changes
            weighted by A's shares (buckets without data in both runs are left
            out and the weights renormalised). None when no bucket has both.
        warn: Whether the overall change lies outside the range of the
            per-bucket changes and at least one bucket moved the other way
            with an interval that excludes 0 on that side.
        message: Why it warns (empty when it does not).
    """

    buckets: tuple[BucketShift, ...]
    overall_a: float | None
    overall_b: float | None
    at_a_mix: float | None
    warn: bool
    message: str

    @property
    def overall_delta(self) -> float | None:
        """``p_B - p_A`` over all sessions."""
        if self.overall_a is None or self.overall_b is None:
            return None
        return self.overall_b - self.overall_a


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _points(x: float) -> str:
    return f"{x * 100:+.1f} points"


def _supported_against(s: BucketShift, overall: float) -> bool:
    """Whether the bucket's interval puts its change on the side opposite ``overall``."""
    if s.ci is None:
        return False
    return s.ci[0] > 0.0 if overall < 0 else s.ci[1] < 0.0


def _interval_text(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]"


def simpson_check(
    counts_a: Mapping[str, tuple[int, int]],
    counts_b: Mapping[str, tuple[int, int]],
    order: Sequence[str] | None = None,
    intervals: Mapping[str, tuple[float, float] | None] | None = None,
    level: float = 0.95,
) -> SimpsonCheck:
    """Compare the overall change in pass rate with the per-bucket changes.

    Args:
        counts_a: Bucket name -> ``(passed, n)`` in run A.
        counts_b: Bucket name -> ``(passed, n)`` in run B.
        order: Display order of the buckets; by default A's, then B's new ones.
        intervals: Bucket name -> the interval of its change (the comparison's,
            paired where keys are shared); by default Newcombe's independent
            interval from the counts.
        level: Confidence level of the default intervals.

    Returns:
        The per-bucket shifts, the overall rates, the change at A's mix and the warning.
    """
    names = list(order) if order is not None else list(dict.fromkeys([*counts_a, *counts_b]))
    total_a = sum(counts_a.get(n, (0, 0))[1] for n in names)
    total_b = sum(counts_b.get(n, (0, 0))[1] for n in names)
    shifts = []
    for name in names:
        pa, na = counts_a.get(name, (0, 0))
        pb, nb = counts_b.get(name, (0, 0))
        if not (0 <= pa <= na and 0 <= pb <= nb):
            raise ValueError(f"bucket {name!r}: need 0 <= passed <= n in both runs")
        if intervals is not None:
            ci = intervals.get(name)
        else:
            ci = newcombe_interval(pa, na, pb, nb, level) if na and nb else None
        shifts.append(
            BucketShift(
                name,
                pa,
                na,
                pb,
                nb,
                na / total_a if total_a else 0.0,
                nb / total_b if total_b else 0.0,
                ci,
            )
        )
    overall_a = sum(s.passed_a for s in shifts) / total_a if total_a else None
    overall_b = sum(s.passed_b for s in shifts) / total_b if total_b else None
    both = [s for s in shifts if s.delta is not None]
    weight = sum(s.share_a for s in both)
    at_a_mix = sum(s.share_a * (s.delta or 0.0) for s in both) / weight if weight else None
    check = SimpsonCheck(tuple(shifts), overall_a, overall_b, at_a_mix, False, "")
    overall = check.overall_delta
    if overall is None or not both:
        return check
    deltas = [s.delta for s in both if s.delta is not None]
    outside = overall > max(deltas) or overall < min(deltas)
    against = [
        s
        for s in both
        if s.delta is not None
        and _sign(s.delta) == -_sign(overall) != 0
        and _supported_against(s, overall)
    ]
    if not (outside and against):
        return check
    moved = ", ".join(f"{s.name} {_points(s.delta or 0.0)}{_interval_text(s.ci)}" for s in against)
    mix = ", ".join(f"{s.name} {s.share_a:.0%} -> {s.share_b:.0%}" for s in shifts)
    message = (
        f"Simpson's paradox: overall {_points(overall)}, but {moved} moved the other way "
        f"(their {level:.0%} intervals exclude 0). The overall change lies "
        f"outside the per-bucket range ({_points(min(deltas))} to {_points(max(deltas))}): "
        f"the change in mix drives it (share of sessions A -> B: {mix}). "
        f"At A's mix the change is {_points(at_a_mix or 0.0)}."
    )
    return SimpsonCheck(tuple(shifts), overall_a, overall_b, at_a_mix, True, message)
