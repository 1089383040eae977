"""Per-session metering: what one session's LLM calls used and cost, by role.

The engine makes one ``SessionMeter`` per session and hands it to every
LLM-backed component of that session (simulator, agent, judge); each reports
every call it made, successful or finally failed, so a session's cost is the
sum over all of them, retries included.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simlab.core import add_cost, sum_costs
from simlab.llm._base import LLM
from simlab.llm._errors import ProviderError
from simlab.llm._types import LLMRequest, LLMResponse, Role, Usage


@dataclass
class RoleMeter:
    """Calls, attempts, tokens and cost of one role in one session."""

    calls: int = 0
    attempts: int = 0
    failures: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0  # None: some call's price is unknown

    @property
    def retries(self) -> int:
        """Attempts beyond the first of each call."""
        return self.attempts - self.calls


@dataclass
class SessionMeter:
    """Everything one session's LLM calls used, by role."""

    roles: dict[str, RoleMeter] = field(default_factory=dict)

    def record(self, role: Role, response: LLMResponse) -> None:
        """Count a call that returned ``response``."""
        meter = self.roles.setdefault(role, RoleMeter())
        meter.calls += 1
        meter.attempts += response.attempts
        meter.usage = meter.usage + response.usage
        meter.cost_usd = add_cost(meter.cost_usd, response.cost_usd)

    def record_reported(self, role: Role, usage: Usage, cost_usd: float | None) -> None:
        """Count a call another party made and reported (an HTTP target's ``usage``)."""
        meter = self.roles.setdefault(role, RoleMeter())
        meter.calls += 1
        meter.attempts += 1
        meter.usage = meter.usage + usage
        meter.cost_usd = add_cost(meter.cost_usd, cost_usd)

    def record_failure(self, role: Role, error: ProviderError, attempts: int = 1) -> None:
        """Count a call that finally failed; what its attempts cost is still billed."""
        meter = self.roles.setdefault(role, RoleMeter())
        meter.calls += 1
        meter.failures += 1
        meter.attempts += attempts
        if error.usage is not None:
            meter.usage = meter.usage + error.usage
        meter.cost_usd = add_cost(meter.cost_usd, error.cost_usd)

    @property
    def usage(self) -> Usage:
        """Tokens over every role."""
        total = Usage()
        for meter in self.roles.values():
            total = total + meter.usage
        return total

    @property
    def cost_usd(self) -> float | None:
        """USD over every role, retries included; None when some call's price is unknown."""
        return sum_costs(m.cost_usd for m in self.roles.values())

    @property
    def calls(self) -> int:
        """LLM calls over every role."""
        return sum(m.calls for m in self.roles.values())

    @property
    def retries(self) -> int:
        """Retried attempts over every role."""
        return sum(m.retries for m in self.roles.values())

    def as_json(self) -> dict[str, dict[str, float | int | None]]:
        """Per-role figures for a session record's ``meta``."""
        return {
            role: {
                "calls": m.calls,
                "retries": m.retries,
                "failures": m.failures,
                "input_tokens": m.usage.input_tokens,
                "output_tokens": m.usage.output_tokens,
                "cache_read_tokens": m.usage.cache_read_tokens,
                "cache_write_tokens": m.usage.cache_write_tokens,
                "cost_usd": None if m.cost_usd is None else round(m.cost_usd, 8),
            }
            for role, m in sorted(self.roles.items())
        }


async def metered_complete(llm: LLM, req: LLMRequest, meter: SessionMeter) -> LLMResponse:
    """``llm.complete(req)``, with the call (or its final failure) counted in ``meter``
    under ``req.role``; a ``ProviderError`` is re-raised after it is counted."""
    try:
        response = await llm.complete(req)
    except ProviderError as e:
        meter.record_failure(req.role, e)
        raise
    meter.record(req.role, response)
    return response
