"""Simulated users: the protocol, the seeded disclosure plan, the scripted and LLM verbalizers.

The LLM user (``LLMSimulator``) follows the scripted user's plan and says each
turn in the persona's voice; the ``FidelityAudit`` checks every utterance
against the plan, and a turn that keeps failing raises ``SimulatorFault``.
"""

from simlab.simulators._audit import FAULT_KINDS, FaultKind, FidelityAudit, Finding
from simlab.simulators._length import plan_length, planned_turns
from simlab.simulators._llm import (
    Fault,
    LLMSimulator,
    SimulatorFault,
    llm_simulator_factory,
    parse_answer,
)
from simlab.simulators._perturbation_stack import (
    FactChange,
    PerturbationStack,
    canary_for,
    changed_value,
    session_canaries,
)
from simlab.simulators._plan import DisclosurePlan, PlannedChange
from simlab.simulators._reading import ReplyReader, ReplyReading, questions_in, read_reply
from simlab.simulators._scripted import (
    PerturbationLookup,
    ScriptedSimulator,
    session_perturbations,
)
from simlab.simulators._unheard import UNHEARD_TEXT_CHARS, Unheard
from simlab.simulators._voice import DomainVoice

__all__ = [
    "FAULT_KINDS",
    "UNHEARD_TEXT_CHARS",
    "DisclosurePlan",
    "DomainVoice",
    "FactChange",
    "Fault",
    "FaultKind",
    "FidelityAudit",
    "Finding",
    "LLMSimulator",
    "PerturbationLookup",
    "PerturbationStack",
    "PlannedChange",
    "ReplyReader",
    "ReplyReading",
    "ScriptedSimulator",
    "SimulatorFault",
    "Unheard",
    "canary_for",
    "changed_value",
    "llm_simulator_factory",
    "parse_answer",
    "plan_length",
    "planned_turns",
    "questions_in",
    "read_reply",
    "session_canaries",
    "session_perturbations",
]
