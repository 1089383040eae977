"""Which realistic defects the reference agent has, and its shipped versions."""

from __future__ import annotations

from dataclasses import dataclass, fields
from importlib import resources
from typing import Any

import yaml


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """The reference agent's switchable defects; the defaults are a defect-free agent.

    Attributes:
        context_window: User turns the agent keeps in context (0 = all). Facts
            stated earlier are lost (truncation).
        anchoring: Propose as soon as the required slots are known and never
            revise that proposal, whatever the user adds or changes later.
        drift_after_turns: After this many user turns the agent forgets its
            format rule and stops stating the confirm fields (0 = never).
        one_question_per_turn: Ask for one missing slot per turn instead of all.
        misread_rate: Chance that each parsed number or date is misread (off by one).
    """

    context_window: int = 0
    anchoring: bool = False
    drift_after_turns: int = 0
    one_question_per_turn: bool = False
    misread_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.context_window < 0 or self.drift_after_turns < 0:
            raise ValueError("context_window and drift_after_turns must be >= 0")
        if not 0.0 <= self.misread_rate <= 1.0:
            raise ValueError(f"misread_rate must be in [0, 1], got {self.misread_rate}")


def _load_presets() -> dict[str, AgentConfig]:
    text = (resources.files(__package__) / "data" / "presets.yaml").read_text(encoding="utf-8")
    raw: dict[str, dict[str, Any]] = yaml.safe_load(text)
    known = {f.name for f in fields(AgentConfig)}
    for name, values in raw.items():
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"presets.yaml: {name}: unknown fields {sorted(unknown)}")
    return {name: AgentConfig(**values) for name, values in raw.items()}


PRESETS: dict[str, AgentConfig] = _load_presets()
"""The shipped versions: ``v1`` (defects on) and ``v2`` (all fixed), from presets.yaml."""
