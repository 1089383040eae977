"""Canonical request hashing, cost arithmetic, the price table and the budget."""

from __future__ import annotations

import hashlib

import pytest
from genai_prices import Usage as GenaiUsage
from genai_prices import calc_price
from pydantic import ValidationError

from simlab.core import add_cost, sum_costs
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
    # No price anywhere: unknown, never $0.
    assert table.cost_usd("SmolLM2-135M-Instruct.Q4_1", u) is None
    assert not table.priced("SmolLM2-135M-Instruct.Q4_1") and table.priced("my-model")
    with pytest.raises(ValidationError):
        PriceTable.from_mapping({"m": {"input": 1, "output": 1, "cahce_read": 1}})


def test_a_model_the_table_lacks_takes_genai_prices_price() -> None:
    usage = Usage(input_tokens=1200, output_tokens=300, cache_read_tokens=400)
    expected = calc_price(
        # genai-prices counts cached tokens inside input_tokens; simlab keeps them apart
        GenaiUsage(input_tokens=1600, output_tokens=300, cache_read_tokens=400),
        model_ref="gpt-4o-mini",
    ).total_price
    cost = PriceTable().cost_usd("gpt-4o-mini", usage)
    assert cost is not None and cost > 0 and cost == pytest.approx(float(expected))
    # the suite's entry still wins over the library's
    mine = PriceTable.from_mapping({"gpt-4o-mini": {"input": 1.0, "output": 0.0}})
    assert mine.cost_usd("gpt-4o-mini", usage) == pytest.approx(1200 / 1e6)


def test_costs_that_are_unknown_stay_unknown_in_sums() -> None:
    assert sum_costs([0.5, 0.25]) == pytest.approx(0.75)
    assert sum_costs([0.5, None, 0.25]) is None
    assert sum_costs([]) == 0.0
    assert add_cost(None, 1.0) is None and add_cost(1.0, None) is None
    budget = Budget(1.0)
    budget.charge(None)
    assert budget.unpriced == 1 and budget.spent_usd == 0.0


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
