"""Judge calibration against human labels: TPR, TNR, kappa and the corrected pass rate.

The judge's job is to catch failures, so a *failure* is the positive class:
among sessions a human failed, the judge's fail share is the TPR (sensitivity,
failures caught); among sessions a human passed, the judge's pass share is the
TNR (specificity). Cohen's kappa (``simlab.stats.cohen_kappa``) says how far
judge and human agree beyond chance. A judge that errs biases its raw pass
rate; the Rogan-Gladen estimator undoes that bias. Written for the pass rate
with a failure as the positive class::

    corrected = (p_obs + TPR - 1) / (TPR + TNR - 1), clipped to [0, 1]

(one minus the corrected failure rate ``(q_obs + TNR - 1) / (TPR + TNR - 1)``).

Its interval comes from a seeded bootstrap that resamples, jointly and
independently, the human-fail labels, the human-pass labels and the run's
judge verdicts. Resampling a set of 0/1 outcomes with replacement draws its
count of ones from Binomial(n, p_hat), so each group is resampled exactly by one
binomial draw (vectorised, no per-session loop). Each replicate recomputes
TPR, TNR, p_obs and the clipped estimate; the interval is the replicates'
percentile interval. A replicate whose TPR + TNR - 1 <= 0 has no estimate (the
judge is no better than chance there); when more than the interval's tail
share of replicates has none, the interval is [0, 1]: the data cannot bound
the pass rate. The labelled sessions are usually a subset of the run;
treating the groups as independent ignores that overlap. An excess of judge
passes among them raises p_obs and lowers TPR and raises TNR, whose effects on the
estimate partly cancel, so ignoring it tends to widen the interval, not narrow it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simlab.stats import Kappa, cohen_kappa, wilson_interval

DEFAULT_BOOTSTRAP = 4000
"""Bootstrap replicates of the corrected pass rate."""


class CalibrationError(ValueError):
    """Labels and verdicts that cannot be compared (unknown or duplicate keys)."""


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion with its count, n and Wilson interval; ``value`` is None when n == 0."""

    successes: int
    n: int
    ci: tuple[float, float]

    @property
    def value(self) -> float | None:
        """successes / n, or None when nothing was counted."""
        return self.successes / self.n if self.n else None

    @classmethod
    def of(cls, successes: int, n: int, level: float = 0.95) -> Rate:
        """The rate ``successes / n`` with its Wilson interval at ``level``."""
        return cls(successes, n, wilson_interval(successes, n, level))

    def as_json(self) -> dict[str, Any]:
        """``{"value", "successes", "n", "ci"}``."""
        return {"value": self.value, "successes": self.successes, "n": self.n, "ci": list(self.ci)}


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """How far a judge agrees with humans, and what the run's pass rate really is.

    Attributes:
        tpr: Judge fails among human fails (sensitivity: real failures caught).
        tnr: Judge passes among human passes (specificity).
        agreement: Judge and human agree, over every labelled session.
        kappa: Cohen's kappa of judge and human over the labelled sessions.
        raw_pass_rate: The judge's pass rate over the whole run.
        corrected: The Rogan-Gladen estimate clipped to [0, 1]; None when
            TPR + TNR - 1 <= 0 (or a group is empty): the judge carries no signal.
        corrected_ci: Its bootstrap percentile interval.
        level: The confidence level of every interval.
        n_boot: Bootstrap replicates.
        undefined_share: Replicates with no estimate (TPR* + TNR* - 1 <= 0).
        seed: The bootstrap's seed.
    """

    tpr: Rate
    tnr: Rate
    agreement: Rate
    kappa: Kappa
    raw_pass_rate: Rate
    corrected: float | None
    corrected_ci: tuple[float, float]
    level: float
    n_boot: int
    undefined_share: float
    seed: int

    def as_json(self) -> dict[str, Any]:
        """Every figure, for ``--json`` and for tests."""
        return {
            "tpr": self.tpr.as_json(),
            "tnr": self.tnr.as_json(),
            "agreement": self.agreement.as_json(),
            "kappa": {"value": self.kappa.kappa, "n": self.kappa.n, "ci": list(self.kappa.ci)},
            "positive": "fail",
            "raw_pass_rate": self.raw_pass_rate.as_json(),
            "corrected": self.corrected,
            "corrected_ci": list(self.corrected_ci),
            "level": self.level,
            "n_boot": self.n_boot,
            "undefined_share": self.undefined_share,
            "seed": self.seed,
            "method": "Rogan-Gladen; stratified binomial bootstrap, percentile interval",
        }


def rogan_gladen(p_obs: float, tpr: float, tnr: float) -> float | None:
    """The true pass rate implied by an observed judge pass rate and the judge's errors.

    Args:
        p_obs: The judge's pass rate.
        tpr: P(judge fail | human fail): the failures it catches.
        tnr: P(judge pass | human pass).

    Returns:
        ``(p_obs + tpr - 1) / (tpr + tnr - 1)`` clipped to [0, 1], or None when
        ``tpr + tnr - 1 <= 0`` (the judge is no better than a coin).
    """
    youden = tpr + tnr - 1.0
    if youden <= 0.0:
        return None
    return min(1.0, max(0.0, (p_obs + tpr - 1.0) / youden))


def calibrate(
    labels: Sequence[tuple[str, bool]],
    verdicts: Mapping[str, bool],
    run_verdicts: Sequence[bool],
    seed: int,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    level: float = 0.95,
) -> CalibrationReport:
    """Compare a judge with human labels and correct the run's judge pass rate.

    Args:
        labels: ``(session key id, human passed)`` for each labelled session.
        verdicts: The judge's verdict by session key id (at least every labelled one).
        run_verdicts: The judge's verdict on every judged session of the run.
        seed: Seeds the bootstrap.
        n_boot: Bootstrap replicates.
        level: Confidence level of every interval.

    Returns:
        The report; see the module docstring for the method.

    Raises:
        CalibrationError: A label's key has no judge verdict, or a key is labelled twice.
        ValueError: ``n_boot`` < 1 or ``level`` outside (0, 1).
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    # A failure is the positive class: a judge fail on a human fail is a true positive.
    tp = fn = tn = fp = 0
    seen: set[str] = set()
    for key, human in labels:
        if key in seen:
            raise CalibrationError(f"session {key!r} is labelled more than once")
        seen.add(key)
        if key not in verdicts:
            raise CalibrationError(f"session {key!r} has no judge verdict")
        judge = verdicts[key]
        if not human:
            tp, fn = (tp + 1, fn) if not judge else (tp, fn + 1)
        else:
            tn, fp = (tn + 1, fp) if judge else (tn, fp + 1)
    tpr = Rate.of(tp, tp + fn, level)
    tnr = Rate.of(tn, tn + fp, level)
    raw = Rate.of(sum(1 for v in run_verdicts if v), len(run_verdicts), level)
    corrected = None
    if tpr.value is not None and tnr.value is not None and raw.value is not None:
        corrected = rogan_gladen(raw.value, tpr.value, tnr.value)
    ci, undefined = _bootstrap_ci(tpr, tnr, raw, seed, n_boot, level)
    return CalibrationReport(
        tpr=tpr,
        tnr=tnr,
        agreement=Rate.of(tp + tn, tp + fn + tn + fp, level),
        kappa=cohen_kappa([h for _, h in labels], [verdicts[k] for k, _ in labels], level),
        raw_pass_rate=raw,
        corrected=corrected,
        corrected_ci=ci,
        level=level,
        n_boot=n_boot,
        undefined_share=undefined,
        seed=seed,
    )


def _bootstrap_ci(
    tpr: Rate, tnr: Rate, raw: Rate, seed: int, n_boot: int, level: float
) -> tuple[tuple[float, float], float]:
    """Percentile interval of the clipped Rogan-Gladen estimate, and the undefined share."""
    if tpr.n == 0 or tnr.n == 0 or raw.n == 0:
        return (0.0, 1.0), 1.0
    rng = np.random.default_rng(seed)
    # One binomial draw per group is exactly a with-replacement resample of its 0/1 outcomes.
    se = rng.binomial(tpr.n, tpr.successes / tpr.n, n_boot) / tpr.n  # failures caught
    sp = rng.binomial(tnr.n, tnr.successes / tnr.n, n_boot) / tnr.n  # passes recognised
    p = rng.binomial(raw.n, raw.successes / raw.n, n_boot) / raw.n
    youden = se + sp - 1.0
    defined = youden > 0.0
    undefined = float(1.0 - defined.mean())
    tail = (1.0 - level) / 2.0
    if undefined > tail:
        return (0.0, 1.0), undefined
    est = np.clip((p[defined] + se[defined] - 1.0) / youden[defined], 0.0, 1.0)
    lo, hi = np.quantile(est, [tail, 1.0 - tail])
    return (float(lo), float(hi)), undefined
