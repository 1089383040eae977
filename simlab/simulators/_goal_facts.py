"""A goal's facts as the simulated user looks them up.

A session draws its plan, plays its length and speaks from a few tables of its
goal's facts (which facts are required, each fact's slot, the facts of a slot).
"""

from __future__ import annotations

from dataclasses import dataclass

from simlab.spec import FactValue, Goal, Slot


@dataclass(frozen=True, slots=True)
class GoalFacts:
    """The lookups about one goal's facts, in the goal's fact order."""

    ids: tuple[str, ...]
    required: tuple[str, ...]
    """The required facts' ids, in goal order."""
    is_required: frozenset[str]
    slot_of: dict[str, Slot]
    by_slot: dict[Slot, tuple[str, ...]]
    """Per slot, the facts of that slot, in goal order."""
    declared: dict[str, FactValue]
    """Each fact's value as the goal declares it (before any mind change)."""
    groups: tuple[tuple[str, float], ...]
    """Each fact's id and its group in a plan's order: 0.0 when required, else 1.0."""

    @classmethod
    def of(cls, goal: Goal) -> GoalFacts:
        """The tables of ``goal``."""
        by_slot: dict[Slot, list[str]] = {}
        for f in goal.facts:
            by_slot.setdefault(f.slot, []).append(f.id)
        required = tuple(f.id for f in goal.facts if f.required)
        return cls(
            ids=tuple(f.id for f in goal.facts),
            required=required,
            is_required=frozenset(required),
            slot_of={f.id: f.slot for f in goal.facts},
            by_slot={slot: tuple(ids) for slot, ids in by_slot.items()},
            declared={f.id: f.value for f in goal.facts},
            groups=tuple((f.id, 0.0 if f.required else 1.0) for f in goal.facts),
        )
