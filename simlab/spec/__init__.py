"""YAML specs: personas, goals, suites; their loader and JSON schemas."""

from simlab.spec._models import (
    Bucket,
    CallableTarget,
    Constraint,
    Fact,
    FactValue,
    Goal,
    Language,
    MindChange,
    Mode,
    Persona,
    ReferenceTarget,
    ScriptedSimulator,
    Slot,
    Suite,
    Traits,
)

__all__ = [
    "Bucket",
    "CallableTarget",
    "Constraint",
    "Fact",
    "FactValue",
    "Goal",
    "Language",
    "MindChange",
    "Mode",
    "Persona",
    "ReferenceTarget",
    "ScriptedSimulator",
    "Slot",
    "Suite",
    "Traits",
]
