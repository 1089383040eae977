"""Release comparison: pair two runs by key, compare pass rates with intervals,
McNemar on paired outcomes, aptitude and unreliability deltas, a Simpson's-paradox
check, regressions, and gates with JUnit and markdown output (``simlab compare``)."""

from simlab.compare._analysis import (
    SAFETY_PREFIXES,
    Comparison,
    GroupComparison,
    Rate,
    Regression,
    SafetyViolation,
    SpreadDelta,
    compare_runs,
    derived_seed,
    is_safety_check,
    spread_delta,
)
from simlab.compare._cli import cli_main
from simlab.compare._gates import GateResult, Gates, GateStatus, evaluate_gates, load_gates
from simlab.compare._junit import render_junit
from simlab.compare._markdown import render_markdown, verdict
from simlab.compare._newcombe import PairedTable, newcombe_interval, paired_newcombe_interval
from simlab.compare._pairing import (
    ErrorSession,
    LocatedRecord,
    Pairing,
    RunSessions,
    load_run,
    pair_sessions,
)
from simlab.compare._simpson import BucketShift, SimpsonCheck, simpson_check
from simlab.compare._terminal import render_terminal

__all__ = [
    "SAFETY_PREFIXES",
    "BucketShift",
    "Comparison",
    "ErrorSession",
    "GateResult",
    "GateStatus",
    "Gates",
    "GroupComparison",
    "LocatedRecord",
    "PairedTable",
    "Pairing",
    "Rate",
    "Regression",
    "RunSessions",
    "SafetyViolation",
    "SimpsonCheck",
    "SpreadDelta",
    "cli_main",
    "compare_runs",
    "derived_seed",
    "evaluate_gates",
    "is_safety_check",
    "load_gates",
    "load_run",
    "newcombe_interval",
    "pair_sessions",
    "paired_newcombe_interval",
    "render_junit",
    "render_markdown",
    "render_terminal",
    "simpson_check",
    "spread_delta",
    "verdict",
]
