"""Prices per model and the cost of a call.

Prices are USD per million tokens. A suite's ``pricing:`` mapping comes first,
then a few Anthropic defaults (a dated model id, ``claude-sonnet-4-5-20250929``,
takes the price of its longest known prefix among these), then the maintained
``genai-prices`` library's bundled snapshot (offline: its update functions are
never called). A model none of them prices costs ``None``: unknown, never $0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from simlab.llm._types import Usage


class Pricing(BaseModel):
    """USD per million tokens for one model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0.0)
    output: float = Field(ge=0.0)
    cache_read: float = Field(default=0.0, ge=0.0)
    cache_write: float = Field(default=0.0, ge=0.0)

    def cost_usd(self, usage: Usage) -> float:
        """What ``usage`` costs at these prices."""
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        ) / 1_000_000


# Anthropic list prices; cache writes are the 5-minute TTL rate (1.25x input),
# cache reads 0.1x input.
DEFAULT_PRICING: dict[str, Pricing] = {
    "claude-opus-4-5": Pricing(input=5.0, output=25.0, cache_read=0.5, cache_write=6.25),
    "claude-opus-4-1": Pricing(input=15.0, output=75.0, cache_read=1.5, cache_write=18.75),
    "claude-opus-4": Pricing(input=15.0, output=75.0, cache_read=1.5, cache_write=18.75),
    "claude-sonnet-4-5": Pricing(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-sonnet-4": Pricing(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-haiku-4-5": Pricing(input=1.0, output=5.0, cache_read=0.1, cache_write=1.25),
    "claude-3-5-haiku": Pricing(input=0.8, output=4.0, cache_read=0.08, cache_write=1.0),
}


class PriceTable:
    """Looks up a model's price: exact id first, then the longest matching prefix.

    Args:
        prices: Model id (or id prefix) to price; merged over ``DEFAULT_PRICING``.
    """

    def __init__(self, prices: Mapping[str, Pricing] | None = None) -> None:
        self.prices: dict[str, Pricing] = {**DEFAULT_PRICING, **(prices or {})}
        # Longest first so "claude-opus-4-1" wins over "claude-opus-4".
        self._prefixes = sorted(self.prices, key=len, reverse=True)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> PriceTable:
        """Build from a YAML ``pricing:`` mapping (model -> input/output/cache_read/cache_write)."""
        return cls({model: Pricing.model_validate(entry) for model, entry in raw.items()})

    def lookup(self, model: str) -> Pricing | None:
        """The price of ``model``, or None when no entry matches."""
        if (exact := self.prices.get(model)) is not None:
            return exact
        for prefix in self._prefixes:
            if model.startswith(prefix):
                return self.prices[prefix]
        return None

    def priced(self, model: str) -> bool:
        """True when the cost of a call to ``model`` can be computed."""
        return self.cost_usd(model, Usage(input_tokens=1, output_tokens=1)) is not None

    def cost_usd(self, model: str, usage: Usage) -> float | None:
        """What ``usage`` costs on ``model``: the table's price, else ``genai-prices``';
        None when neither knows the model (its cost is unknown, not zero)."""
        price = self.lookup(model)
        if price is not None:
            return price.cost_usd(usage)
        return library_cost_usd(model, usage)

    def as_json(self) -> dict[str, dict[str, float]]:
        """The table as plain data, for ``run.json``'s ``pricing``."""
        return {model: price.model_dump() for model, price in sorted(self.prices.items())}


def library_cost_usd(model: str, usage: Usage) -> float | None:
    """``genai-prices``' cost of ``usage`` on ``model``, or None when it has no price.

    Its ``input_tokens`` include the cached ones (simlab's do not), so they are added back.
    """
    if not model:
        return None
    # Imported here: ~0.2 s that a run with no LLM call (or only priced ones) never pays.
    from genai_prices import Usage as PricedUsage
    from genai_prices import calc_price

    priced = PricedUsage(
        input_tokens=usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )
    try:
        return float(calc_price(priced, model_ref=model).total_price)
    except (LookupError, ValueError):
        return None
