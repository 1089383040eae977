"""Memory aspects: does an agent's memory store, recall, update, expire, forget, isolate?"""

from simlab.memory._adapter import MemoryStoreError, as_memory_store
from simlab.memory._agent import MemoryAgent
from simlab.memory._catalogue import CATALOGUE, FactKind

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.memory._cli import cli_main as cli_main
from simlab.memory._clock import DEFAULT_START, SimClock
from simlab.memory._e2e import (
    E2E_VARIANTS,
    MemoryScript,
    ScriptedSession,
    arun_memory_e2e,
    arun_script,
    build_script,
    run_memory_e2e,
)
from simlab.memory._protocol import MemoryItem, MemoryStore
from simlab.memory._result import Aspect, AspectResult
from simlab.memory._stores import AppendOnlyStore, KeyedStore
from simlab.memory._suite import arun_aspect, arun_memory_suite, run_memory_suite

__all__ = [
    "CATALOGUE",
    "DEFAULT_START",
    "E2E_VARIANTS",
    "AppendOnlyStore",
    "Aspect",
    "AspectResult",
    "FactKind",
    "KeyedStore",
    "MemoryAgent",
    "MemoryItem",
    "MemoryScript",
    "MemoryStore",
    "MemoryStoreError",
    "ScriptedSession",
    "SimClock",
    "arun_aspect",
    "arun_memory_e2e",
    "arun_memory_suite",
    "arun_script",
    "as_memory_store",
    "build_script",
    "run_memory_e2e",
    "run_memory_suite",
]
