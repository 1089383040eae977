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

__all__ = [
    "CallableTarget",
    "HttpAgent",
    "HttpAgentConfigError",
    "HttpAgentError",
    "HttpSession",
    "HttpTargetFactory",
    "LLMAgent",
    "ParsedReply",
    "TargetLoadError",
    "callable_target_factory",
    "completion_reply",
    "http_target_factory",
    "import_ref",
    "llm_target_factory",
    "object_target_factory",
    "parse_reply",
    "to_reply",
]
