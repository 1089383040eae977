"""What an HTTP target reports it spent: its ``usage``, rolled into the session's.

An endpoint that answers with a ``usage`` object (OpenAI's chat-completions shape,
or Anthropic's Messages shape) is counted as one ``agent`` call in the session's
meter, priced by the response's ``model`` (else the model the suite sends) with
the run's price table; a model with no price makes the cost unknown, never $0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from simlab.llm import Budget, PriceTable, SessionMeter, Usage

USAGE_META = "usage"
"""The ``AgentReply.meta`` key holding the endpoint's ``usage`` object as it came."""
MODEL_META = "model"
"""The ``AgentReply.meta`` key holding the model the endpoint said answered (with usage)."""

UsageReader = Callable[[Mapping[str, Any]], Usage]


@dataclass(frozen=True)
class TargetBilling:
    """Where one session's target usage is counted, and at what prices.

    Attributes:
        meter: The session's meter (its ``agent`` role).
        prices: The run's price table (the suite's ``pricing:`` first).
        budget: The run's budget, charged with each reported cost; None: not charged.
    """

    meter: SessionMeter
    prices: PriceTable = field(default_factory=PriceTable)
    budget: Budget | None = None

    def bill(self, meta: Mapping[str, Any], read: UsageReader, sent_model: str) -> None:
        """Count the reply's reported usage, if it has a readable one."""
        raw = meta.get(USAGE_META)
        if not isinstance(raw, Mapping):
            return
        try:
            usage = read(raw)
        except (TypeError, ValueError, AttributeError):
            return  # not counts: the turn's meta keeps it as it came
        model = meta.get(MODEL_META) or sent_model
        cost = self.prices.cost_usd(model, usage) if isinstance(model, str) and model else None
        self.meter.record_reported("agent", usage, cost)
        if self.budget is not None:
            self.budget.charge(cost)
