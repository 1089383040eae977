"""Target agents: adapters (callable, OpenAI and Anthropic HTTP, LLM from YAML), reference."""

from simlab.agents._anthropic_http import (
    AnthropicHttpAgent,
    AnthropicHttpTargetFactory,
    anthropic_http_target_factory,
    message_reply,
    messages_body,
)
from simlab.agents._billing import TargetBilling
from simlab.agents._callable import (
    CallableTarget,
    TargetLoadError,
    TargetReplyError,
    callable_target_factory,
    import_ref,
    object_target_factory,
    to_reply,
)
from simlab.agents._endpoint_read import EndpointRules, body_limit
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
from simlab.agents._tool_results import (
    ReportedResult,
    attach_results,
    decode_result,
)
from simlab.agents._worker import (
    ProcessAgent,
    ProcessTargetFactory,
    TargetRaised,
    TargetWorkerError,
    process_target_factory,
)

__all__ = [
    "AnthropicHttpAgent",
    "AnthropicHttpTargetFactory",
    "CallableTarget",
    "EndpointRules",
    "HttpAgent",
    "HttpAgentConfigError",
    "HttpAgentError",
    "HttpSession",
    "HttpTargetFactory",
    "LLMAgent",
    "ParsedReply",
    "ProcessAgent",
    "ProcessTargetFactory",
    "ReportedResult",
    "TargetBilling",
    "TargetLoadError",
    "TargetRaised",
    "TargetReplyError",
    "TargetWorkerError",
    "anthropic_http_target_factory",
    "attach_results",
    "body_limit",
    "callable_target_factory",
    "completion_reply",
    "decode_result",
    "http_target_factory",
    "import_ref",
    "llm_target_factory",
    "message_reply",
    "messages_body",
    "object_target_factory",
    "parse_reply",
    "process_target_factory",
    "to_reply",
]
