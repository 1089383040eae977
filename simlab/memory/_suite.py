"""Run every aspect scenario against fresh stores from a factory."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

import anyio

from simlab.core import derive_seed
from simlab.memory._adapter import as_memory_store
from simlab.memory._clock import SimClock
from simlab.memory._probe import Probe
from simlab.memory._result import Aspect, AspectResult
from simlab.memory._scenarios import SCENARIOS

StoreFactory = Callable[[], object]


async def arun_aspect(factory: StoreFactory, aspect: Aspect, seed: int) -> AspectResult:
    """Run one aspect's scenario against a fresh store (async form).

    A store that raises fails the aspect with the error as evidence; the
    remaining aspects still run.
    """
    store = as_memory_store(factory())
    probe = Probe(store, SimClock(), aspect.value)
    try:
        await SCENARIOS[aspect](probe, Random(derive_seed("memory", seed, aspect.value)))
    except Exception as e:  # the store is untrusted code: its crash is evidence, not ours
        probe.crashed(e)
    return probe.result()


async def arun_memory_suite(factory: StoreFactory, seed: int = 0) -> list[AspectResult]:
    """Every aspect, in ``Aspect`` order, each against a fresh store (async form)."""
    return [await arun_aspect(factory, aspect, seed) for aspect in Aspect]


def run_memory_suite(factory: StoreFactory, seed: int = 0) -> list[AspectResult]:
    """Run the memory aspect suite: storage, retrieval, update, staleness, deletion, isolation.

    Args:
        factory: Makes an empty store (a class works); sync or async methods.
        seed: Chooses users, facts, values and gaps; same seed, same scenarios.

    Returns:
        One ``AspectResult`` per aspect, in ``Aspect`` order.

    Raises:
        MemoryStoreError: The factory's object is not a memory store at all.
    """
    return anyio.run(arun_memory_suite, factory, seed)
