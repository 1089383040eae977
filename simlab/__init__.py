"""simlab: stress-test conversational LLM agents with simulated users.

The names a user needs: run a suite (``run``, ``run_async``), read a run
(``read_run``), build a suite in code (``Suite``, ``Persona``, ``Goal``), plug
in a target (``TargetAgent``, ``AgentReply``, ``ToolCall``) or a grader
(``Grader``) and read results (``RunResult``, ``SessionRecord``, ``Check``).
Subpackages export the rest.
"""

from simlab.api import (
    RunInterrupted,
    RunResult,
    assert_lower_bound,
    read_run,
    run,
    run_async,
)
from simlab.contracts import (
    NOT_APPLICABLE,
    Grader,
    GradingContext,
    TargetAgent,
    UserSimulator,
)
from simlab.core import (
    AgentCapabilities,
    AgentReply,
    Check,
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
from simlab.spec import Goal, Mode, Persona, SpecError, Suite
from simlab.store import RunDirError, RunSummary, SessionRecord, StopReason

__version__ = simlab_version()

__all__ = [
    "NOT_APPLICABLE",
    "AgentCapabilities",
    "AgentReply",
    "Check",
    "ContextInfo",
    "Goal",
    "Grader",
    "GradingContext",
    "Knobs",
    "Message",
    "Mode",
    "Persona",
    "RunDirError",
    "RunInterrupted",
    "RunResult",
    "RunSummary",
    "SessionContext",
    "SessionKey",
    "SessionRecord",
    "SpecError",
    "StopReason",
    "StopSignal",
    "Suite",
    "TargetAgent",
    "ToolCall",
    "Transcript",
    "Turn",
    "UserSimulator",
    "UserTurn",
    "__version__",
    "assert_lower_bound",
    "read_run",
    "run",
    "run_async",
]
