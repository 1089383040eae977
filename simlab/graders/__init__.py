"""Graders: constraint checks, trajectory metrics and the session score."""

from simlab.graders._action import action_view, final_action, satisfies, violations

__all__ = ["action_view", "final_action", "satisfies", "violations"]
