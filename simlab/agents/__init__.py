"""Target agents: the protocol, adapters for callables, and the reference booking agent."""

from simlab.agents._callable import (
    CallableTarget,
    TargetLoadError,
    callable_target_factory,
    import_ref,
    to_reply,
)
from simlab.agents._protocol import AgentCapabilities, Knobs, SessionContext, TargetAgent

__all__ = [
    "AgentCapabilities",
    "CallableTarget",
    "Knobs",
    "SessionContext",
    "TargetAgent",
    "TargetLoadError",
    "callable_target_factory",
    "import_ref",
    "to_reply",
]
