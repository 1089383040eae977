"""Canonical request hashing, cost arithmetic, the price table and the budget."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from simlab.llm import (
    Budget,
    LLMMessage,
    LLMRequest,
    LLMSpec,
    PriceTable,
    Pricing,
    Usage,
    canonical_request_hash,
    canonical_request_json,
)


def _req(**kw: object) -> LLMRequest:
    base: dict[str, object] = {"messages": (LLMMessage(role="user", content="Hà Nội"),)}
    return LLMRequest.model_validate({**base, **kw})


def test_canonical_json_is_sorted_compact_and_utf8() -> None:
    expected = (
        '{"json_output":false,"max_tokens":null,"messages":[{"content":"Hà Nội","role":"user"}],'
        '"model":null,"role":"user","seed":7,"stop":[],"system":"s","temperature":null,"v":1}'
    )
    req = _req(system="s", seed=7, role="user")
    assert canonical_request_json(req) == expected
    assert canonical_request_hash(req) == hashlib.sha256(expected.encode()).hexdigest()


def test_hash_changes_with_any_field_and_not_with_construction_order() -> None:
    a = _req(seed=1, role="judge")
    b = LLMRequest(role="judge", seed=1, messages=(LLMMessage(role="user", content="Hà Nội"),))
    assert canonical_request_hash(a) == canonical_request_hash(b)
    assert canonical_request_hash(a) != canonical_request_hash(_req(seed=2, role="judge"))
    assert canonical_request_hash(a) != canonical_request_hash(_req(seed=1, role="user"))


def test_cost_by_hand() -> None:
    usage = Usage(
        input_tokens=1_000, output_tokens=500, cache_read_tokens=20_000, cache_write_tokens=4_000
    )
    price = Pricing(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
    # 1000*3 + 500*15 + 20000*0.3 + 4000*3.75 = 3000 + 7500 + 6000 + 15000 = 31500 per 1e6
    assert price.cost_usd(usage) == pytest.approx(0.0315)


def test_price_table_prefix_override_and_unknown() -> None:
    table = PriceTable.from_mapping(
        {"my-model": {"input": 2.0, "output": 4.0}, "claude-haiku-4-5": {"input": 9, "output": 9}}
    )
    u = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert table.cost_usd("my-model", u) == pytest.approx(6.0)
    # Dated id -> longest prefix: opus-4-1 (15 + 75), not opus-4.
    assert table.cost_usd("claude-opus-4-1-20250805", u) == pytest.approx(90.0)
    assert table.cost_usd("claude-haiku-4-5-20251001", u) == pytest.approx(18.0)  # override won
    assert table.cost_usd("SmolLM2-135M-Instruct.Q4_1", u) == 0.0
    with pytest.raises(ValidationError):
        PriceTable.from_mapping({"m": {"input": 1, "output": 1, "cahce_read": 1}})


def test_budget_sums_and_exhausts() -> None:
    budget = Budget(0.10)
    budget.charge(0.04)
    budget.charge(0.05)
    assert not budget.exhausted
    assert budget.remaining_usd == pytest.approx(0.01)
    budget.charge(0.02)
    assert budget.exhausted
    assert budget.spent_usd == pytest.approx(0.11)
    assert not Budget(None).exhausted


def test_spec_forbids_unknown_fields_and_bad_backends() -> None:
    with pytest.raises(ValidationError, match="temprature"):
        LLMSpec.model_validate({"backend": "openai", "temprature": 0.2})
    with pytest.raises(ValidationError, match="backend"):
        LLMSpec.model_validate({"backend": "gemini"})
    assert LLMSpec(backend="anthropic").key_env == "ANTHROPIC_API_KEY"
    assert LLMSpec(backend="openai", api_key_env="MY_KEY").key_env == "MY_KEY"
