"""Request and response types shared by every LLM backend."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "agent", "judge"]
"""The simlab role a request is made for; limits and counters are kept per role."""

# Bumped when the canonical form changes, so old recordings miss instead of
# silently answering a request that now means something else.
_CANONICAL_VERSION = 1


class LLMMessage(BaseModel):
    """One message of the conversation sent to a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """Everything a backend needs for one completion.

    ``None`` fields take the backend's configured default (its ``LLMSpec``).
    No credentials or headers live here: the request is what gets hashed and
    recorded.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: tuple[LLMMessage, ...]
    system: str = ""
    max_tokens: int | None = Field(default=None, gt=0)
    temperature: float | None = Field(default=None, ge=0.0)
    seed: int | None = None
    stop: tuple[str, ...] = ()
    json_output: bool = False
    model: str | None = None
    role: Role = "agent"


class Usage(BaseModel):
    """Tokens one call spent.

    ``input_tokens`` counts uncached input only; cached input is split into
    ``cache_read_tokens`` (a cache hit) and ``cache_write_tokens`` (a cache
    entry created), the way Anthropic bills them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        # validated on purpose: pydantic's model_construct is Python code, and slower
        # (3.6 us against 2.3 us here) than the core's validation of four ints
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        """All tokens of the call, cached or not."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class LLMResponse(BaseModel):
    """A model's answer with what it cost.

    ``usage`` is the final attempt's; ``cost_usd`` is summed over every attempt
    of the call that reported usage (retries included), None when the price of
    its model is unknown; ``attempts`` says how many were made.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    usage: Usage = Field(default_factory=Usage)
    model: str
    latency_s: float = 0.0
    cost_usd: float | None = 0.0
    stop_reason: str | None = None
    raw_id: str | None = None
    attempts: int = 1


def canonical_request_json(req: LLMRequest) -> str:
    """The request as canonical JSON: sorted keys, no whitespace, UTF-8 text."""
    body = {"v": _CANONICAL_VERSION, **req.model_dump(mode="json")}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_request_hash(req: LLMRequest) -> str:
    """The sha256 hex digest of the request's canonical JSON (the replay key)."""
    return hashlib.sha256(canonical_request_json(req).encode("utf-8")).hexdigest()
