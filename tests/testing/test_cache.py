"""Prompt-cache accounting by shared prefix, hand-computed."""

from simlab.testing import PromptCache
from simlab.testing._request import parse_anthropic, parse_openai

CC = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "s" * 400, "cache_control": CC}]  # 100 tokens


def _turns(*texts: str, model: str = "m") -> dict[str, object]:
    roles = ["user", "assistant"]
    messages: list[dict[str, object]] = [
        {"role": roles[i % 2], "content": t} for i, t in enumerate(texts[:-1])
    ]
    # The growing transcript's breakpoint sits on the newest user turn.
    messages.append(
        {"role": "user", "content": [{"type": "text", "text": texts[-1], "cache_control": CC}]}
    )
    return {"model": model, "max_tokens": 10, "system": SYSTEM, "messages": messages}


def test_growing_transcript_reads_previous_prefix_and_writes_the_rest() -> None:
    cache = PromptCache(max_entries=100)
    first = cache.account(parse_anthropic(_turns("u" * 40), 0))  # 100 + 10 tokens
    assert (first.uncached, first.cache_read, first.cache_creation) == (0, 0, 110)
    second = cache.account(parse_anthropic(_turns("u" * 40, "a" * 20, "v" * 8), 1))
    assert (second.uncached, second.cache_read, second.cache_creation) == (0, 110, 7)
    again = cache.account(parse_anthropic(_turns("u" * 40, "a" * 20, "v" * 8), 2))
    assert (again.cache_read, again.cache_creation) == (117, 0)


def test_no_breakpoint_no_cache_and_models_do_not_share() -> None:
    cache = PromptCache(max_entries=100)
    plain = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "abcdefgh"}]}
    assert cache.account(parse_anthropic(plain, 0)).uncached == 2
    assert len(cache) == 0
    cache.account(parse_anthropic(_turns("u" * 40), 0))
    other = cache.account(parse_anthropic(_turns("u" * 40, model="other"), 1))
    assert other.cache_read == 0 and other.cache_creation == 110


def test_min_tokens_and_lru_bound() -> None:
    cache = PromptCache(max_entries=2, min_tokens=105)
    # The system prefix (100 tokens) is too short to write; system + user (110) is not.
    assert cache.account(parse_anthropic(_turns("u" * 40), 0)).cache_creation == 110
    assert len(cache) == 1
    cache.account(parse_anthropic(_turns("x" * 40), 1))
    cache.account(parse_anthropic(_turns("y" * 40), 2))
    assert len(cache) == 2  # the "u" prefix was evicted first
    assert cache.account(parse_anthropic(_turns("u" * 40), 3)).cache_read == 0


def test_openai_caches_every_message_prefix() -> None:
    cache = PromptCache(max_entries=100)
    msgs = [{"role": "system", "content": "s" * 40}, {"role": "user", "content": "u" * 8}]
    cache.account(parse_openai({"model": "g", "messages": msgs}, 0))
    longer = [*msgs, {"role": "assistant", "content": "a" * 4}, {"role": "user", "content": "v"}]
    usage = cache.account(parse_openai({"model": "g", "messages": longer}, 1))
    assert usage.cache_read == 12  # 10 + 2 tokens of the first request's messages
