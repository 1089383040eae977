"""Statistics for simlab runs: percentiles, aptitude and unreliability,
confidence intervals, pass^k and length buckets. Pure functions."""

from simlab.stats._buckets import LengthBucket, bucket_of
from simlab.stats._intervals import bootstrap_mean_ci, bootstrap_means_ci, wilson_interval
from simlab.stats._passk import pass_hat_k, pass_hat_k_by_task, pass_hat_k_curve
from simlab.stats._percentile import aptitude, percentile, unreliability

__all__ = [
    "LengthBucket",
    "aptitude",
    "bootstrap_mean_ci",
    "bootstrap_means_ci",
    "bucket_of",
    "pass_hat_k",
    "pass_hat_k_by_task",
    "pass_hat_k_curve",
    "percentile",
    "unreliability",
    "wilson_interval",
]
