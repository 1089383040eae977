"""The Python API: ``simlab.run`` and ``simlab.read_run``; the CLI is a shell over it."""

from simlab.api._bounds import assert_lower_bound
from simlab.api._parts import PartError, SimulatorLike, TargetLike, part_name
from simlab.api._progress import RunProgress
from simlab.api._read import read_run
from simlab.api._result import RunPaths, RunResult
from simlab.api._run import (
    DEFAULT_OUT,
    RunInterrupted,
    execute_plan,
    plan,
    run,
    run_async,
)

__all__ = [
    "DEFAULT_OUT",
    "PartError",
    "RunInterrupted",
    "RunPaths",
    "RunProgress",
    "RunResult",
    "SimulatorLike",
    "TargetLike",
    "assert_lower_bound",
    "execute_plan",
    "part_name",
    "plan",
    "read_run",
    "run",
    "run_async",
]
