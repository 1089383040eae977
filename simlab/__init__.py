"""simlab: stress-test conversational LLM agents with simulated users.

The public API; subpackages re-export their own names for finer imports.
"""

from simlab.agents import AgentCapabilities, Knobs, SessionContext, TargetAgent
from simlab.spec import Goal, Mode, Persona, Suite
from simlab.store import SessionKey, SessionRecord, StopReason
from simlab.transcript import (
    AgentReply,
    ContextInfo,
    Message,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
)

__version__ = "0.1.0"

__all__ = [
    "AgentCapabilities",
    "AgentReply",
    "ContextInfo",
    "Goal",
    "Knobs",
    "Message",
    "Mode",
    "Persona",
    "SessionContext",
    "SessionKey",
    "SessionRecord",
    "StopReason",
    "StopSignal",
    "Suite",
    "TargetAgent",
    "ToolCall",
    "Transcript",
    "Turn",
    "UserTurn",
    "__version__",
]
