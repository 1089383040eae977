"""What a recorded session would cost with each of its agent turns on a chosen model.

A record keeps its agent's tokens for the whole session (``meta.llm.agent``, else
``usage``), not per turn. A stateless agent resends the conversation each turn,
so the session's prompt tokens (uncached + cache read + cache write) are shared
among its turns in proportion to the history each turn's prompt carried: the
characters of the conversation up to that user turn, plus one turn's average
standing in for the system prompt and tool schemas. Output tokens are shared in
proportion to each reply's characters (text and tool calls). One model call per
turn is assumed.

Pricing a route (one model per turn) with a prompt cache: a model holds the
prefix it was last sent (prompt and answer); a turn on it reads
``min(held, prompt)`` tokens from the cache at ``cache_read`` and pays the rest
as a cache write (``cache_write``, or ``input`` where the price has no write
premium). A switch to another model finds only what that model last held (the
cache does not follow the conversation across models); TTLs are ignored. A
price with neither cache rate is a model without a cache: it pays ``input`` for
every prompt token.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from simlab.llm import Pricing
from simlab.store import SessionRecord


@dataclass(frozen=True, slots=True)
class TurnTokens:
    """One agent turn's estimated prompt and output tokens."""

    prompt: float
    output: float


@dataclass(frozen=True, slots=True)
class RouteCost:
    """A session priced on a route.

    Attributes:
        usd: The cost.
        switches: Model changes between consecutive turns.
        cached: Prompt tokens read from a cache.
        prompt: Prompt tokens in all.
    """

    usd: float
    switches: int
    cached: float
    prompt: float


def agent_tokens(record: SessionRecord) -> tuple[int, int]:
    """The session's agent prompt tokens (uncached, cache read and write) and output tokens."""
    agent = (record.meta.get("llm") or {}).get("agent")
    if isinstance(agent, dict):
        prompt = sum(
            int(agent.get(k, 0))
            for k in ("input_tokens", "cache_read_tokens", "cache_write_tokens")
        )
        return prompt, int(agent.get("output_tokens", 0))
    u = record.usage
    return u.input_tokens + u.cache_read_tokens + u.cache_write_tokens, u.output_tokens


def turn_tokens(record: SessionRecord) -> list[TurnTokens]:
    """The session's agent tokens shared among its agent turns (see the module docstring)."""
    prompt, output = agent_tokens(record)
    history = 0
    carried: list[int] = []
    written: list[int] = []
    for turn in record.transcript.turns:
        if turn.user.stop is not None:
            break
        history += len(turn.user.text)
        if turn.agent is None:
            continue
        carried.append(history)
        reply = len(turn.agent.text) + sum(
            len(json.dumps(c.model_dump(mode="json"), default=str)) for c in turn.agent.tool_calls
        )
        written.append(reply + 1)
        history += reply
    if not carried:
        return []
    standing = history / len(carried)
    weights = [standing + h for h in carried]
    total_w, total_out = sum(weights), sum(written)
    return [
        TurnTokens(prompt * w / total_w, output * o / total_out)
        for w, o in zip(weights, written, strict=True)
    ]


def route_cost(
    turns: Sequence[TurnTokens], route: Sequence[str], prices: dict[str, Pricing]
) -> RouteCost:
    """``turns`` priced with turn ``i`` on model ``route[i]`` (see the module docstring).

    Raises:
        KeyError: a model of the route has no price.
    """
    held: dict[str, float] = {}
    usd = cached = prompt = 0.0
    for tokens, model in zip(turns, route, strict=True):
        price = prices[model]
        # a price with no cache rates is a model without a prompt cache: every prompt
        # token is paid as input (a cache_read of 0 is not a free cache)
        has_cache = price.cache_read > 0 or price.cache_write > 0
        hit = min(held.get(model, 0.0), tokens.prompt) if has_cache else 0.0
        write = price.cache_write or price.input
        usd += (hit * price.cache_read + (tokens.prompt - hit) * write) / 1e6
        usd += tokens.output * price.output / 1e6
        held[model] = tokens.prompt + tokens.output
        cached += hit
        prompt += tokens.prompt
    switches = sum(1 for a, b in pairwise(route) if a != b)
    return RouteCost(usd, switches, cached, prompt)
