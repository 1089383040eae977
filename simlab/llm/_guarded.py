"""``GuardedLLM``: limits, retries, cost, budget and counters around a backend.

Every attempt waits for a concurrency slot and the role's rate allowances; a
failed attempt is classified by the backend's ``should_retry`` and retried with
the policy's waits. The retry loop is a plain one: tenacity's per-call machinery
was about 5% of the client's CPU with 256 sessions running
(``bench/llm_sessions.py``). Every attempt that reported usage is priced,
charged to the budget and counted, so retries are never free in the books.
"""

from __future__ import annotations

import random

from simlab.core import add_cost
from simlab.llm._accounting import Budget, LLMStats, RoleStats
from simlab.llm._base import LLM
from simlab.llm._errors import LLMError, ProviderError
from simlab.llm._limits import RoleLimits, estimate_tokens
from simlab.llm._pricing import PriceTable
from simlab.llm._retry import RetryDecision, RetryPolicy, retry_sleep
from simlab.llm._types import LLMRequest, LLMResponse, Usage


class GuardedLLM(LLM):
    """Wraps a backend with limits, retries and accounting.

    Args:
        inner: The backend that makes one attempt per ``complete``.
        limits: The role's concurrency and rate limits.
        policy: Attempts and waits.
        prices: Prices for the cost of each attempt.
        budget: The run's shared budget (charged, never enforced here: the
            engine stops starting sessions once it is exhausted).
        stats: The run's shared counters.
        jitter_seed: Seeds the backoff jitter, so waits are reproducible.
    """

    def __init__(
        self,
        inner: LLM,
        *,
        limits: RoleLimits,
        policy: RetryPolicy,
        prices: PriceTable | None = None,
        budget: Budget | None = None,
        stats: LLMStats | None = None,
        jitter_seed: int = 0,
    ) -> None:
        self.inner = inner
        self.limits = limits
        self.policy = policy
        self.prices = prices or PriceTable()
        self.budget = budget or Budget()
        self.stats = stats or LLMStats()
        self._rng = random.Random(jitter_seed)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def max_connections(self) -> int:
        return self.inner.max_connections

    @property
    def reports_cost(self) -> bool:
        return True

    @property
    def free(self) -> bool:
        return self.inner.free

    @property
    def needs_price(self) -> bool:
        return self.inner.needs_price

    def should_retry(self, exc: BaseException) -> RetryDecision:
        return self.inner.should_retry(exc)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __repr__(self) -> str:
        return f"GuardedLLM({self.inner!r})"

    async def complete(self, req: LLMRequest) -> LLMResponse:
        """Complete ``req`` within the limits, retrying transient failures."""
        stats = self.stats.role(req.role)
        stats.calls += 1
        chars = len(req.system) + sum(len(m.content) for m in req.messages)
        estimate = estimate_tokens(chars)
        spent: list[float | None] = [0.0]  # cost over every attempt (None: unknown)
        attempts = 0
        try:
            while True:
                attempts += 1
                try:
                    resp = await self._attempt(req, estimate, stats, spent)
                    break
                except Exception as exc:
                    decision = self.inner.should_retry(exc)
                    if not decision.retry:
                        raise
                    # The wait is drawn before the attempt limit is checked (as tenacity 9
                    # did), so the jitter sequence of later calls is what it was.
                    wait_s = self.policy.wait_s(decision, attempts, self._rng)
                    if attempts >= self.policy.max_attempts:
                        raise
                    stats.retries += 1
                    await retry_sleep(wait_s)
        except ProviderError as exc:
            exc.cost_usd = spent[0]
            stats.failures += 1
            raise
        except LLMError:
            stats.failures += 1
            raise
        if self.inner.reports_cost:
            # A replayed response keeps the attempts its recording took.
            attempts += resp.attempts - 1
        return resp.model_copy(update={"cost_usd": spent[0], "attempts": attempts})

    async def _attempt(
        self, req: LLMRequest, estimate: int, stats: RoleStats, spent: list[float | None]
    ) -> LLMResponse:
        async with self.limits.slots:
            await self.limits.admit(estimate)
            stats.attempts += 1
            try:
                resp = await self.inner.complete(req)
            except ProviderError as exc:
                stats.errors[self.inner.should_retry(exc).reason] += 1
                if exc.usage is not None:
                    model = req.model or self.inner.model
                    cost = self._price(model, exc.usage)
                    spent[0] = add_cost(spent[0], cost)
                    self._account(stats, exc.usage, cost, estimate)
                raise
            except LLMError as exc:
                stats.errors[type(exc).__name__] += 1
                raise
        # A replayed response carries what its recording cost (None: unknown then too).
        cost = resp.cost_usd if self.inner.reports_cost else self._price(resp.model, resp.usage)
        spent[0] = add_cost(spent[0], cost)
        self._account(stats, resp.usage, cost, estimate)
        return resp

    def _account(self, stats: RoleStats, usage: Usage, cost: float | None, estimate: int) -> None:
        stats.usage = stats.usage + usage
        stats.cost_usd = add_cost(stats.cost_usd, cost)
        self.budget.charge(cost)
        self.limits.settle(estimate, usage.total_tokens)

    def _price(self, model: str, usage: Usage) -> float | None:
        """What one attempt cost: 0 on a free backend, None when the model has no price."""
        return 0.0 if self.inner.free else self.prices.cost_usd(model, usage)
