"""Run budget and per-role counters: calls, retries, errors, tokens, cost.

Costs are only ever added, never overwritten: every attempt that reported
usage is charged, failed ones included. A cost is ``None`` when it is unknown
(a model with no price); a sum with an unknown term is unknown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from simlab.core import sum_costs
from simlab.llm._types import Usage


class Budget:
    """A USD budget shared by every role of a run.

    Args:
        usd: The limit; None means unlimited (spending is still counted).
    """

    def __init__(self, usd: float | None = None) -> None:
        self.usd = usd
        self.spent_usd = 0.0
        self.unpriced = 0  # charges whose cost was unknown (not in spent_usd)

    def charge(self, cost_usd: float | None) -> None:
        """Add a cost (running calls are charged even past the limit); an unknown one is
        counted in ``unpriced`` (a run with a limit refuses to start when it could be)."""
        if cost_usd is None:
            self.unpriced += 1
        else:
            self.spent_usd += cost_usd

    @property
    def exhausted(self) -> bool:
        """True once spending reached the limit, or a cost under a limit is unknown (an
        HTTP target reported a model with no price): start no new session."""
        return self.usd is not None and (self.spent_usd >= self.usd or self.unpriced > 0)

    @property
    def remaining_usd(self) -> float | None:
        """What is left, or None when unlimited."""
        return None if self.usd is None else max(0.0, self.usd - self.spent_usd)

    def __repr__(self) -> str:
        return f"Budget(usd={self.usd!r}, spent_usd={self.spent_usd:.6f})"


@dataclass(slots=True)
class RoleStats:
    """Counters of one role.

    Attributes:
        calls: Logical calls made (a call with retries counts once).
        attempts: Requests sent, retries included.
        retries: Attempts after the first.
        failures: Calls that failed after their last attempt.
        errors: Failed attempts by reason (``http_429``, ``timeout``...).
        usage: Tokens over every attempt that reported usage.
        cost_usd: Cost over every attempt that reported usage; None when some
            attempt's price is unknown.
    """

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    failures: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0

    def as_json(self) -> dict[str, Any]:
        """Plain data for ``run.json`` and reports."""
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "retries": self.retries,
            "failures": self.failures,
            "errors": dict(sorted(self.errors.items())),
            "usage": self.usage.model_dump(),
            "cost_usd": self.cost_usd,
        }


class LLMStats:
    """Per-role counters shared by every LLM of a run."""

    def __init__(self) -> None:
        self.roles: dict[str, RoleStats] = {}

    def role(self, role: str) -> RoleStats:
        """The counters of ``role``, created on first use."""
        stats = self.roles.get(role)
        if stats is None:
            stats = self.roles[role] = RoleStats()
        return stats

    @property
    def cost_usd(self) -> float | None:
        """Total cost over every role; None when some cost is unknown."""
        return sum_costs(s.cost_usd for s in self.roles.values())

    def as_json(self) -> dict[str, dict[str, Any]]:
        """Plain data, one entry per role."""
        return {role: stats.as_json() for role, stats in sorted(self.roles.items())}
