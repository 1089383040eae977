"""A fake LLM provider on loopback, for simlab's tests and benchmarks and for yours.

It speaks the Anthropic Messages API (with ``count_tokens``), OpenAI chat
completions and the Responses API's basic shape over real HTTP, streamed (SSE)
or not, with native tool calls (a responder returns a ``FakeReply``, or
``tool_choice`` forces one), seeded latency and fault injection and simulated
prompt caching::

    from simlab.testing import FakeProvider, FakeProviderConfig, scripted

    fake = FakeProvider(FakeProviderConfig(latency_ms=20), scripted(["Hello!"]))
    async with fake.serve() as base_url:
        client = AsyncAnthropic(base_url=base_url, api_key="test")
        ...
    assert fake.stats().succeeded == 1
"""

from simlab.testing._cache import CacheUsage, PromptCache

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.testing._cli import cli_main as cli_main
from simlab.testing._config import FAULT_KINDS, FakeProviderConfig, FaultKind, FaultMix
from simlab.testing._judge_play import fake_judge, judge_reply
from simlab.testing._reply import FakeReply
from simlab.testing._request import (
    FakeMessage,
    FakeRequest,
    FakeTool,
    FakeToolCall,
    PromptSegment,
    ToolChoice,
    count_tokens,
)
from simlab.testing._responders import (
    ByModel,
    Responder,
    default_responder,
    echo,
    rule_based,
    scripted,
)
from simlab.testing._roleplay import LARGE_MODEL, SMALL_MODEL, Roleplay, roleplay, roleplay_models
from simlab.testing._server import FakeProvider
from simlab.testing._stats import FakeProviderStats

__all__ = [
    "FAULT_KINDS",
    "LARGE_MODEL",
    "SMALL_MODEL",
    "ByModel",
    "CacheUsage",
    "FakeMessage",
    "FakeProvider",
    "FakeProviderConfig",
    "FakeProviderStats",
    "FakeReply",
    "FakeRequest",
    "FakeTool",
    "FakeToolCall",
    "FaultKind",
    "FaultMix",
    "PromptCache",
    "PromptSegment",
    "Responder",
    "Roleplay",
    "ToolChoice",
    "count_tokens",
    "default_responder",
    "echo",
    "fake_judge",
    "judge_reply",
    "roleplay",
    "roleplay_models",
    "rule_based",
    "scripted",
]
