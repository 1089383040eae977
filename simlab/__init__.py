"""simlab: stress-test conversational LLM agents with simulated users.

The public API; subpackages re-export their own names for finer imports.
"""

from simlab.contracts import TargetAgent
from simlab.core import (
    AgentCapabilities,
    AgentReply,
    ContextInfo,
    Knobs,
    Message,
    SessionContext,
    SessionKey,
    StopSignal,
    ToolCall,
    Transcript,
    Turn,
    UserTurn,
    simlab_version,
)
from simlab.spec import Goal, Mode, Persona, Suite
from simlab.store import SessionRecord, StopReason

__version__ = simlab_version()

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
