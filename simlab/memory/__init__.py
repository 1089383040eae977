"""Memory aspects: does an agent's memory store, recall, update, expire, forget, isolate?"""

from simlab.memory._adapter import MemoryStoreError, as_memory_store
from simlab.memory._catalogue import CATALOGUE, FactKind
from simlab.memory._clock import DEFAULT_START, SimClock
from simlab.memory._protocol import MemoryItem, MemoryStore
from simlab.memory._result import Aspect, AspectResult
from simlab.memory._stores import AppendOnlyStore, KeyedStore
from simlab.memory._suite import arun_aspect, arun_memory_suite, run_memory_suite

__all__ = [
    "CATALOGUE",
    "DEFAULT_START",
    "AppendOnlyStore",
    "Aspect",
    "AspectResult",
    "FactKind",
    "KeyedStore",
    "MemoryItem",
    "MemoryStore",
    "MemoryStoreError",
    "SimClock",
    "arun_aspect",
    "arun_memory_suite",
    "as_memory_store",
    "run_memory_suite",
]
