"""The LLM provider ABC: one abstract method, hooks with safe defaults."""

from __future__ import annotations

from abc import ABC, abstractmethod

from simlab.llm._retry import RetryDecision, classify_exception
from simlab.llm._types import LLMRequest, LLMResponse


class LLM(ABC):
    """A language model simlab can ask for completions.

    Subclasses implement ``complete``; everything else has a safe default.
    Backends raise ``ProviderError`` subclasses for provider failures so that
    the retry layer can classify them.
    """

    @abstractmethod
    async def complete(self, req: LLMRequest) -> LLMResponse:
        """Return the model's completion of ``req``."""

    @property
    def name(self) -> str:
        """The backend's name (``anthropic``, ``openai``, ``local``, ``replay``...)."""
        return type(self).__name__.lower()

    @property
    def model(self) -> str:
        """The default model id requests go to."""
        return "unknown"

    @property
    def max_connections(self) -> int:
        """Connections this backend may keep open at once."""
        return 16

    @property
    def free(self) -> bool:
        """True when calls cost nothing whatever the model (a model run in-process)."""
        return False

    @property
    def needs_price(self) -> bool:
        """True when a call's cost comes from the price table (not free, not replayed)."""
        return not (self.free or self.reports_cost)

    @property
    def reports_cost(self) -> bool:
        """True when responses already carry their cost (a replayed recording)."""
        return False

    def should_retry(self, exc: BaseException) -> RetryDecision:
        """Whether a failed attempt is worth retrying; ``classify`` by default."""
        return classify_exception(exc)

    async def aclose(self) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Release connections and models; the default holds none."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"
