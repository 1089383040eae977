"""The vocabulary every part of simlab shares, below everything that uses it.

Conversation types (messages, tool calls, turns, transcripts), a session's key,
a grader's ``Check``, seed derivation, and what the engine tells a target about
its session. This package imports nothing else of simlab.
"""

from simlab.core._context import AgentCapabilities, Knobs, SessionContext
from simlab.core._cost import add_cost, sum_costs
from simlab.core._errors import ReportedError
from simlab.core._facts import StatedFact, stated_facts
from simlab.core._frozen import FrozenDict, FrozenJSON, FrozenJSONDict, freeze
from simlab.core._key import Check, GraderFailure, SessionKey
from simlab.core._seeds import derive_seed
from simlab.core._text import escape_controls, strip_diacritics
from simlab.core._transcript import (
    NOT_REPORTED,
    TOOL_RESULTS_META,
    AgentReply,
    ContextInfo,
    Message,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
    tool_call_counts,
)
from simlab.core._version import simlab_version

__all__ = [
    "NOT_REPORTED",
    "TOOL_RESULTS_META",
    "AgentCapabilities",
    "AgentReply",
    "Check",
    "ContextInfo",
    "FrozenDict",
    "FrozenJSON",
    "FrozenJSONDict",
    "GraderFailure",
    "Knobs",
    "Message",
    "ReportedError",
    "SessionContext",
    "SessionKey",
    "StatedFact",
    "StopSignal",
    "ToolCall",
    "Transcript",
    "Turn",
    "UserTurn",
    "add_cost",
    "derive_seed",
    "escape_controls",
    "freeze",
    "simlab_version",
    "stated_facts",
    "strip_diacritics",
    "sum_costs",
    "tool_call_counts",
]
