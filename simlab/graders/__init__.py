"""Graders: constraint checks, trajectory metrics, the score, the LLM judge, calibration."""

from simlab.graders._action import action_view, final_action, satisfies, violations
from simlab.graders._builtin import (
    BUILTIN,
    Canary,
    Confirmation,
    Constraints,
    GoalCompleted,
    Trajectory,
)
from simlab.graders._calibration import (
    CalibrationError,
    CalibrationReport,
    Rate,
    calibrate,
    rogan_gladen,
)
from simlab.graders._calibration_cli import LabelsError, calibrate_cli, read_labels
from simlab.graders._canary import CANARY, canary_check
from simlab.graders._completion import (
    CONFIRMATION,
    GOAL_COMPLETED,
    confirmation_check,
    goal_completed_check,
)
from simlab.graders._constraints import CONSTRAINT_PREFIX, constraint_checks
from simlab.graders._grade import (
    CONFIRMATION_WEIGHT,
    CONSTRAINTS_WEIGHT,
    GOAL_COMPLETED_WEIGHT,
    TRAJECTORY_WEIGHT,
    Grade,
    GradingError,
    default_graders,
    grade,
    grade_session,
    score_checks,
)
from simlab.graders._judge import (
    DEFAULT_RUBRIC,
    JUDGE,
    JudgeError,
    JudgeOutputError,
    JudgeVerdict,
    LLMJudge,
    judge_model_id,
    parse_judge_output,
)
from simlab.graders._judge_case import render_case
from simlab.graders._label_agreement import LabelAgreement, kappa_cli, label_agreement
from simlab.graders._label_split import DEFAULT_DEV_SHARE, Half, label_half, split_keys
from simlab.graders._registry import FunctionGrader, as_grader, resolve_graders
from simlab.graders._trajectory import (
    TRAJECTORY,
    TrajectoryMetrics,
    trajectory_check,
    trajectory_metrics,
)

__all__ = [
    "BUILTIN",
    "CANARY",
    "CONFIRMATION",
    "CONFIRMATION_WEIGHT",
    "CONSTRAINTS_WEIGHT",
    "CONSTRAINT_PREFIX",
    "DEFAULT_DEV_SHARE",
    "DEFAULT_RUBRIC",
    "GOAL_COMPLETED",
    "GOAL_COMPLETED_WEIGHT",
    "JUDGE",
    "TRAJECTORY",
    "TRAJECTORY_WEIGHT",
    "CalibrationError",
    "CalibrationReport",
    "Canary",
    "Confirmation",
    "Constraints",
    "FunctionGrader",
    "GoalCompleted",
    "Grade",
    "GradingError",
    "Half",
    "JudgeError",
    "JudgeOutputError",
    "JudgeVerdict",
    "LLMJudge",
    "LabelAgreement",
    "LabelsError",
    "Rate",
    "Trajectory",
    "TrajectoryMetrics",
    "action_view",
    "as_grader",
    "calibrate",
    "calibrate_cli",
    "canary_check",
    "confirmation_check",
    "constraint_checks",
    "default_graders",
    "final_action",
    "goal_completed_check",
    "grade",
    "grade_session",
    "judge_model_id",
    "kappa_cli",
    "label_agreement",
    "label_half",
    "parse_judge_output",
    "read_labels",
    "render_case",
    "resolve_graders",
    "rogan_gladen",
    "satisfies",
    "score_checks",
    "split_keys",
    "trajectory_check",
    "trajectory_metrics",
    "violations",
]
