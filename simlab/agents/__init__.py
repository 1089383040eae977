"""Target agents: the protocol, adapters (callable, HTTP, LLM-from-YAML) and the reference agent."""

from simlab.agents._agent_spec import (
    AgentSpec,
    Fixture,
    Outcome,
    ToolSpec,
    load_agent_spec,
)
from simlab.agents._callable import (
    CallableTarget,
    TargetLoadError,
    callable_target_factory,
    import_ref,
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
from simlab.agents._protocol import AgentCapabilities, Knobs, SessionContext, TargetAgent
from simlab.agents._tool_schema import validate_args

__all__ = [
    "AgentCapabilities",
    "AgentSpec",
    "CallableTarget",
    "Fixture",
    "HttpAgent",
    "HttpAgentConfigError",
    "HttpAgentError",
    "HttpSession",
    "HttpTargetFactory",
    "Knobs",
    "LLMAgent",
    "Outcome",
    "ParsedReply",
    "SessionContext",
    "TargetAgent",
    "TargetLoadError",
    "ToolSpec",
    "callable_target_factory",
    "completion_reply",
    "http_target_factory",
    "import_ref",
    "llm_target_factory",
    "load_agent_spec",
    "parse_reply",
    "to_reply",
    "validate_args",
]
