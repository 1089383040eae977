"""Graders: constraint checks, trajectory metrics, the score, the LLM judge, calibration,
and where a session's tool use failed (``tool_stages``)."""

from simlab.graders._action import action_view, final_action, same_value, satisfies, violations
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
from simlab.graders._calibration_cli import LabelsError, read_labels

# the command line's entry points: importable for simlab.cli, not in __all__
from simlab.graders._calibration_cli import calibrate_cli as calibrate_cli
from simlab.graders._canary import CANARY, canary_check
from simlab.graders._completion import (
    CONFIRMATION,
    GOAL_COMPLETED,
    confirmation_check,
    goal_completed_check,
)
from simlab.graders._constraints import CONSTRAINT_PREFIX, constraint_checks
from simlab.graders._efficiency import (
    EFFICIENCY,
    MAX_ITERATIONS,
    REFLECTION,
    Efficiency,
    Reflection,
    redundant_calls,
    tool_use,
)
from simlab.graders._grade import (
    CONFIRMATION_WEIGHT,
    CONSTRAINTS_WEIGHT,
    GOAL_COMPLETED_WEIGHT,
    TRAJECTORY_WEIGHT,
    Grade,
    GradingError,
    counted_checks,
    default_graders,
    grade,
    grade_session,
    score_checks,
    uncounted_checks,
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
from simlab.graders._label_agreement import LabelAgreement, label_agreement
from simlab.graders._label_agreement import kappa_cli as kappa_cli
from simlab.graders._label_split import DEFAULT_DEV_SHARE, Half, label_half, split_keys
from simlab.graders._precondition import (
    PRECONDITION,
    Precondition,
    missing_precondition,
    precondition_check,
)
from simlab.graders._redo import RedoWindow, redo_windows
from simlab.graders._registry import FunctionGrader, as_grader, resolve_graders
from simlab.graders._rubric import (
    Criterion,
    broken_criteria,
    criteria_verdict,
    rubric_criteria,
)
from simlab.graders._safety import (
    SAFETY_GRADERS,
    AgencyContract,
    Identity,
    ParamScope,
    ToolCanary,
    ToolPolicy,
)
from simlab.graders._stages import stage_names, tool_stages
from simlab.graders._trajectory import (
    TRAJECTORY,
    TrajectoryMetrics,
    session_trajectory,
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
    "EFFICIENCY",
    "GOAL_COMPLETED",
    "GOAL_COMPLETED_WEIGHT",
    "JUDGE",
    "MAX_ITERATIONS",
    "PRECONDITION",
    "REFLECTION",
    "SAFETY_GRADERS",
    "TRAJECTORY",
    "TRAJECTORY_WEIGHT",
    "AgencyContract",
    "CalibrationError",
    "CalibrationReport",
    "Canary",
    "Confirmation",
    "Constraints",
    "Criterion",
    "Efficiency",
    "FunctionGrader",
    "GoalCompleted",
    "Grade",
    "GradingError",
    "Half",
    "Identity",
    "JudgeError",
    "JudgeOutputError",
    "JudgeVerdict",
    "LLMJudge",
    "LabelAgreement",
    "LabelsError",
    "ParamScope",
    "Precondition",
    "Rate",
    "RedoWindow",
    "Reflection",
    "ToolCanary",
    "ToolPolicy",
    "Trajectory",
    "TrajectoryMetrics",
    "action_view",
    "as_grader",
    "broken_criteria",
    "calibrate",
    "canary_check",
    "confirmation_check",
    "constraint_checks",
    "counted_checks",
    "criteria_verdict",
    "default_graders",
    "final_action",
    "goal_completed_check",
    "grade",
    "grade_session",
    "judge_model_id",
    "label_agreement",
    "label_half",
    "missing_precondition",
    "parse_judge_output",
    "precondition_check",
    "read_labels",
    "redo_windows",
    "redundant_calls",
    "render_case",
    "resolve_graders",
    "rogan_gladen",
    "rubric_criteria",
    "same_value",
    "satisfies",
    "score_checks",
    "session_trajectory",
    "split_keys",
    "stage_names",
    "tool_stages",
    "tool_use",
    "trajectory_check",
    "trajectory_metrics",
    "uncounted_checks",
    "violations",
]
