"""Backends by name, imported lazily, and ``create_llm``.

A backend's module (and its optional dependency) is imported only when a spec
asks for it, so ``import simlab.llm`` stays cheap and a missing extra surfaces
as ``MissingDependencyError`` with the pip command, not an ImportError trace.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from simlab.llm._accounting import Budget, LLMStats
from simlab.llm._base import LLM
from simlab.llm._errors import LLMConfigError
from simlab.llm._guarded import GuardedLLM
from simlab.llm._limits import RoleLimits
from simlab.llm._pricing import PriceTable
from simlab.llm._replay import ReplayLLM
from simlab.llm._spec import LLMSpec

BackendFactory = Callable[[LLMSpec], LLM]

# name -> "module:attr" (imported on first use) or a factory registered at run time.
_BACKENDS: dict[str, str | BackendFactory] = {
    "anthropic": "simlab.llm._anthropic:AnthropicLLM",
    "openai": "simlab.llm._openai:OpenAILLM",
    "local": "simlab.llm._local:LocalLLM",
}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``factory`` the backend called ``name`` (tests and plugins)."""
    _BACKENDS[name] = factory


def backend_factory(name: str) -> BackendFactory:
    """The factory of backend ``name``, importing its module on first use.

    Raises:
        LLMConfigError: No backend has that name.
    """
    entry = _BACKENDS.get(name)
    if entry is None:
        choices = ", ".join(sorted([*_BACKENDS, "replay"]))
        raise LLMConfigError(f"unknown LLM backend {name!r}; choose one of: {choices}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        factory: BackendFactory = getattr(importlib.import_module(module), attr)
        _BACKENDS[name] = factory
        return factory
    return entry


def create_llm(
    spec: LLMSpec,
    *,
    budget: Budget | None = None,
    stats: LLMStats | None = None,
    prices: PriceTable | None = None,
    jitter_seed: int = 0,
    limits: RoleLimits | None = None,
) -> LLM:
    """Build the LLM a spec describes, with limits, retries and accounting.

    ``backend: replay`` answers from ``record_dir`` only. A live backend with
    ``record_dir`` set records every response there.

    Args:
        spec: The role's spec.
        budget: The run's shared budget.
        stats: The run's shared per-role counters.
        prices: The price table (defaults plus a suite's ``pricing:``).
        jitter_seed: Seeds backoff jitter.
        limits: The role's limits in place of the spec's own (``concurrency``,
            ``rpm``, ``tpm``): limits shared by the workers of a cluster.

    Returns:
        An ``LLM`` whose ``complete`` is safe to call concurrently.

    Raises:
        LLMConfigError: A missing key, dependency or recording directory.
    """
    if spec.backend == "replay":
        if spec.record_dir is None:
            raise LLMConfigError("backend 'replay' needs record_dir: the recorded run's directory")
        return GuardedLLM(
            ReplayLLM(spec.record_dir, mode="replay"),
            limits=RoleLimits(spec.concurrency),
            policy=spec.retry_policy(),
            prices=prices,
            budget=budget,
            stats=stats,
            jitter_seed=jitter_seed,
        )
    guarded = GuardedLLM(
        backend_factory(spec.backend)(spec),
        limits=limits or RoleLimits(spec.concurrency, spec.rpm, spec.tpm),
        policy=spec.retry_policy(),
        prices=prices,
        budget=budget,
        stats=stats,
        jitter_seed=jitter_seed,
    )
    if spec.record_dir is not None:
        return ReplayLLM(spec.record_dir, guarded, mode="record")
    return guarded
