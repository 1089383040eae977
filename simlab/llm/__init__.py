"""LLM clients for simlab's roles (user simulator, target agent, judge).

``create_llm(LLMSpec(...))`` builds a backend (``anthropic``, ``openai``,
``local``, ``replay``) wrapped with per-role limits, classified retries, cost
accounting and optional recording. Backends subclass ``LLM``.
"""

from simlab.llm._accounting import Budget, LLMStats, RoleStats
from simlab.llm._base import LLM
from simlab.llm._errors import (
    LLMConfigError,
    LLMError,
    MalformedResponseError,
    MissingDependencyError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeoutError,
    ReplayMissError,
)
from simlab.llm._guarded import GuardedLLM
from simlab.llm._json import first_json_object
from simlab.llm._limits import RoleLimits, TokenBucket
from simlab.llm._meter import RoleMeter, SessionMeter, metered_complete
from simlab.llm._pricing import DEFAULT_PRICING, PriceTable, Pricing
from simlab.llm._registry import create_llm, register_backend
from simlab.llm._replay import ReplayLLM
from simlab.llm._retry import (
    RetryDecision,
    RetryPolicy,
    classify,
    classify_exception,
    parse_retry_after,
    zero_retry_waits,
)
from simlab.llm._spec import Backend, LLMSpec
from simlab.llm._types import (
    LLMMessage,
    LLMRequest,
    LLMResponse,
    Role,
    Usage,
    canonical_request_hash,
    canonical_request_json,
)
from simlab.llm._usage_shapes import anthropic_usage, openai_usage

__all__ = [
    "DEFAULT_PRICING",
    "LLM",
    "Backend",
    "Budget",
    "GuardedLLM",
    "LLMConfigError",
    "LLMError",
    "LLMMessage",
    "LLMRequest",
    "LLMResponse",
    "LLMSpec",
    "LLMStats",
    "MalformedResponseError",
    "MissingDependencyError",
    "PriceTable",
    "Pricing",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeoutError",
    "ReplayLLM",
    "ReplayMissError",
    "RetryDecision",
    "RetryPolicy",
    "Role",
    "RoleLimits",
    "RoleMeter",
    "RoleStats",
    "SessionMeter",
    "TokenBucket",
    "Usage",
    "anthropic_usage",
    "canonical_request_hash",
    "canonical_request_json",
    "classify",
    "classify_exception",
    "create_llm",
    "first_json_object",
    "metered_complete",
    "openai_usage",
    "parse_retry_after",
    "register_backend",
    "zero_retry_waits",
]
