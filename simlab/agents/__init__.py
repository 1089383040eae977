"""Target agents: the protocol, adapters (callable, HTTP, LLM-from-YAML) and the reference agent."""

from simlab.agents._callable import (
    CallableTarget,
    TargetLoadError,
    callable_target_factory,
    import_ref,
    object_target_factory,
    to_reply,
)
from simlab.agents._http import (
    HttpAgent,
    HttpAgentConfigError,
    HttpAgentError,
    HttpSession,
    HttpTargetFactory,
    completion_reply,
    http_target_factory,
)
from simlab.agents._llm_agent import LLMAgent, ParsedReply, llm_target_factory, parse_reply
from simlab.agents._worker import (
    ProcessAgent,
    ProcessTargetFactory,
    TargetRaised,
    TargetWorkerError,
    process_target_factory,
)

__all__ = [
    "CallableTarget",
    "HttpAgent",
    "HttpAgentConfigError",
    "HttpAgentError",
    "HttpSession",
    "HttpTargetFactory",
    "LLMAgent",
    "ParsedReply",
    "ProcessAgent",
    "ProcessTargetFactory",
    "TargetLoadError",
    "TargetRaised",
    "TargetWorkerError",
    "callable_target_factory",
    "completion_reply",
    "http_target_factory",
    "import_ref",
    "llm_target_factory",
    "object_target_factory",
    "parse_reply",
    "process_target_factory",
    "to_reply",
]
