"""Named gradings a suite or goal can start from (``grading: {preset: composite}``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from simlab.core import freeze

GradingPreset = Literal["composite"]
"""The presets ``Grading.preset`` accepts."""

GRADING_PRESETS: Mapping[str, Mapping[str, Any]] = freeze(
    {
        # A composite agent score: tool use 0.25 (the trajectory's LCS F1), trajectory cost
        # 0.20 (redundant calls and iterations), multi-turn memory 0.20 (the final action
        # keeps the user's latest stated facts), reflection 0.15 (recovery from failed tool
        # calls), final answer 0.20 (the goal's final action done and right); passing needs
        # 70 of 100. A component that does not apply to a session drops out and the others'
        # weights are renormalised; confirmation and canary run and report with weight 0.
        "composite": {
            "graders": [
                "goal_completed",
                "constraints",
                "confirmation",
                "trajectory",
                "efficiency",
                "reflection",
                "canary",
            ],
            "weights": {
                "trajectory": 0.25,
                "efficiency": 0.20,
                "constraints": 0.20,
                "reflection": 0.15,
                "goal_completed": 0.20,
            },
            "waive": ["*"],  # the verdict is the score's floor alone
            "min_score": 70.0,
        },
    }
)
"""Each preset's fields; fields a grading sets itself win over its preset's."""
