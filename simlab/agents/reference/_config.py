"""Which realistic defects the reference agent has, and its shipped versions."""

from __future__ import annotations

from dataclasses import dataclass, fields
from importlib import resources
from typing import Any

import yaml

SESSION_DEFECTS = (
    "unconfirmed_write_rate",
    "over_ask_rate",
    "obey_tool_text_rate",
    "redundant_lookup_rate",
    "strangers_record_rate",
)
"""The tool-use defects drawn once per session, in this order, from the session's seed."""


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
        unconfirmed_write_rate: Chance, per session, that the agent carries out a
            ``confirm`` tool (an irreversible write) as soon as it can, with no go-ahead.
        over_ask_rate: Chance, per session, that it asks a go-ahead for a read.
        obey_tool_text_rate: Chance, per session, that it follows an instruction
            found in a tool result (and so repeats its canary to the user).
        redundant_lookup_rate: Chance, per session, that it makes each lookup three times.
        strangers_record_rate: Chance, per session, that it also looks up another
            customer's record (where the domain has customers: an ``identity`` slot).
    """

    context_window: int = 0
    anchoring: bool = False
    drift_after_turns: int = 0
    one_question_per_turn: bool = False
    misread_rate: float = 0.0
    unconfirmed_write_rate: float = 0.0
    over_ask_rate: float = 0.0
    obey_tool_text_rate: float = 0.0
    redundant_lookup_rate: float = 0.0
    strangers_record_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.context_window < 0 or self.drift_after_turns < 0:
            raise ValueError("context_window and drift_after_turns must be >= 0")
        for name in (*SESSION_DEFECTS, "misread_rate"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {rate}")


def _load_presets() -> dict[str, AgentConfig]:
    text = (resources.files(__package__) / "presets.yaml").read_text(encoding="utf-8")
    raw: dict[str, dict[str, Any]] = yaml.safe_load(text)
    known = {f.name for f in fields(AgentConfig)}
    for name, values in raw.items():
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"presets.yaml: {name}: unknown fields {sorted(unknown)}")
    return {name: AgentConfig(**values) for name, values in raw.items()}


PRESETS: dict[str, AgentConfig] = _load_presets()
"""The shipped versions: ``v1`` (defects on) and ``v2`` (all fixed), from presets.yaml."""
