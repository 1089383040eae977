"""Token counts from a provider's ``usage`` object, in the two shapes simlab reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simlab.llm._types import Usage


def openai_usage(raw: Mapping[str, Any]) -> Usage:
    """Tokens of a chat-completions ``usage`` (cached prompt tokens apart)."""
    prompt = int(raw.get("prompt_tokens", 0))
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens", 0) or 0)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=int(raw.get("completion_tokens", 0)),
        cache_read_tokens=cached,
    )


def anthropic_usage(raw: Mapping[str, Any]) -> Usage:
    """Tokens of a Messages ``usage``."""
    return Usage(
        input_tokens=int(raw.get("input_tokens", 0)),
        output_tokens=int(raw.get("output_tokens", 0)),
        cache_read_tokens=int(raw.get("cache_read_input_tokens") or 0),
        cache_write_tokens=int(raw.get("cache_creation_input_tokens") or 0),
    )
