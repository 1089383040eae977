"""Statistics for simlab runs: percentiles, aptitude and unreliability,
confidence intervals, pass^k, length buckets, survival and paired tests, agreement
(Cohen's kappa, balanced accuracy). Pure functions."""

from simlab.stats._agreement import (
    Agreement,
    Kappa,
    agreement,
    balanced_accuracy,
    cohen_kappa,
    kappa_from_table,
)
from simlab.stats._buckets import LengthBucket, bucket_of
from simlab.stats._fisher import fisher_exact
from simlab.stats._intervals import bootstrap_mean_ci, bootstrap_means_ci, wilson_interval
from simlab.stats._multiplicity import holm
from simlab.stats._newcombe import (
    PairedTable,
    newcombe_interval,
    overlap_newcombe_interval,
    overlap_newcombe_p_value,
    paired_newcombe_interval,
)
from simlab.stats._paired import McNemar, mcnemar
from simlab.stats._passk import pass_hat_k, pass_hat_k_by_task, pass_hat_k_curve
from simlab.stats._percentile import aptitude, percentile, unreliability
from simlab.stats._quantiles import bootstrap_ratio_ci, quantile, quantile_ci
from simlab.stats._survival import KaplanMeier, LogRank, SurvivalStep, kaplan_meier, log_rank
from simlab.stats._two_level import (
    Spread,
    pass_hat_k_statistics,
    score_differences,
    score_statistics,
    two_level_bootstrap,
)

__all__ = [
    "Agreement",
    "KaplanMeier",
    "Kappa",
    "LengthBucket",
    "LogRank",
    "McNemar",
    "PairedTable",
    "Spread",
    "SurvivalStep",
    "agreement",
    "aptitude",
    "balanced_accuracy",
    "bootstrap_mean_ci",
    "bootstrap_means_ci",
    "bootstrap_ratio_ci",
    "bucket_of",
    "cohen_kappa",
    "fisher_exact",
    "holm",
    "kaplan_meier",
    "kappa_from_table",
    "log_rank",
    "mcnemar",
    "newcombe_interval",
    "overlap_newcombe_interval",
    "overlap_newcombe_p_value",
    "paired_newcombe_interval",
    "pass_hat_k",
    "pass_hat_k_by_task",
    "pass_hat_k_curve",
    "pass_hat_k_statistics",
    "percentile",
    "quantile",
    "quantile_ci",
    "score_differences",
    "score_statistics",
    "two_level_bootstrap",
    "unreliability",
    "wilson_interval",
]
