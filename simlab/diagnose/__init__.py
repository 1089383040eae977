"""Coherence diagnosis of failed sessions, verified by counterfactual replay.

``diagnose_run(run_dir)`` finds each failed session's first failing turn,
runs every counterfactual replay on it, names its cause (truncation,
anchoring, drift, single-turn, unknown) by code, verifies it only when its own
counterfactual alone fixes the failure, measures the diagnosis (and the same
diagnosis made as a black box, without the agent's self-reports) against the
reference agent's hidden true causes, with Cohen's kappa and balanced
accuracy, and counts first-failure transitions for a heatmap. ``simlab diagnose RUN_DIR`` runs it.
"""

from simlab.diagnose._classify import (
    DEFAULT_LATE_TURN,
    Classification,
    classify_in_view,
    classify_multi_turn,
    without_internals,
)

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.diagnose._cli import cli_main as cli_main
from simlab.diagnose._counterfactual import (
    COUNTERFACTUAL,
    REPLAYS,
    Replay,
    ReplayPlan,
    fixes,
    replay_plan,
    run_replays,
    settled_goal,
    specific_verdict,
    told_changes,
    verdict,
)
from simlab.diagnose._failure import FailureKind, FirstFailure, first_failure
from simlab.diagnose._heatmap import START, Heatmap, agent_state, build_heatmap, transition
from simlab.diagnose._run import DEFAULT_CONCURRENCY, diagnose_run, diagnose_run_async
from simlab.diagnose._truth import TrueCause, records_truth, true_cause
from simlab.store import (
    CAUSES,
    DIAGNOSIS_FILE,
    TRUE_TO_CAUSE,
    Cause,
    CauseRow,
    Confusion,
    DiagnosisReport,
    FailureLocation,
    HeatmapData,
    RecordedCause,
    SessionDiagnosis,
    Share,
    Verification,
)

__all__ = [
    "CAUSES",
    "COUNTERFACTUAL",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_LATE_TURN",
    "DIAGNOSIS_FILE",
    "REPLAYS",
    "START",
    "TRUE_TO_CAUSE",
    "Cause",
    "CauseRow",
    "Classification",
    "Confusion",
    "DiagnosisReport",
    "FailureKind",
    "FailureLocation",
    "FirstFailure",
    "Heatmap",
    "HeatmapData",
    "RecordedCause",
    "Replay",
    "ReplayPlan",
    "SessionDiagnosis",
    "Share",
    "TrueCause",
    "Verification",
    "agent_state",
    "build_heatmap",
    "classify_in_view",
    "classify_multi_turn",
    "diagnose_run",
    "diagnose_run_async",
    "first_failure",
    "fixes",
    "records_truth",
    "replay_plan",
    "run_replays",
    "settled_goal",
    "specific_verdict",
    "told_changes",
    "transition",
    "true_cause",
    "verdict",
    "without_internals",
]
