"""Graders: constraint checks, trajectory metrics and the session score."""

from simlab.graders._action import action_view, final_action, satisfies, violations
from simlab.graders._completion import (
    CONFIRMATION,
    GOAL_COMPLETED,
    confirmation_check,
    goal_completed_check,
)
from simlab.graders._constraints import CONSTRAINT_PREFIX, constraint_checks
from simlab.graders._facts import StatedFact, stated_facts
from simlab.graders._grade import (
    CONFIRMATION_WEIGHT,
    CONSTRAINTS_WEIGHT,
    GOAL_COMPLETED_WEIGHT,
    TRAJECTORY_WEIGHT,
    Grade,
    grade,
)
from simlab.graders._trajectory import (
    TRAJECTORY,
    TrajectoryMetrics,
    trajectory_check,
    trajectory_metrics,
)

__all__ = [
    "CONFIRMATION",
    "CONFIRMATION_WEIGHT",
    "CONSTRAINTS_WEIGHT",
    "CONSTRAINT_PREFIX",
    "GOAL_COMPLETED",
    "GOAL_COMPLETED_WEIGHT",
    "TRAJECTORY",
    "TRAJECTORY_WEIGHT",
    "Grade",
    "StatedFact",
    "TrajectoryMetrics",
    "action_view",
    "confirmation_check",
    "constraint_checks",
    "final_action",
    "goal_completed_check",
    "grade",
    "satisfies",
    "stated_facts",
    "trajectory_check",
    "trajectory_metrics",
    "violations",
]
