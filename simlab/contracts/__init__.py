"""The contracts plugins implement: target agents, simulated users, judges.

They sit above the YAML models (a session setup carries its persona and goal)
and below everything that implements or runs them: simulators, agents,
graders, the engine and the experiments.
"""

from simlab.contracts._grader import (
    NOT_APPLICABLE,
    Grader,
    GraderResult,
    GradingContext,
    NotApplicable,
)
from simlab.contracts._restore import RestorableTarget, RestoreReport
from simlab.contracts._setup import Judge, SessionSetup, SimulatorFactory, TargetFactory
from simlab.contracts._simulator import SimState, UserSimulator
from simlab.contracts._target import TargetAgent

__all__ = [
    "NOT_APPLICABLE",
    "Grader",
    "GraderResult",
    "GradingContext",
    "Judge",
    "NotApplicable",
    "RestorableTarget",
    "RestoreReport",
    "SessionSetup",
    "SimState",
    "SimulatorFactory",
    "TargetAgent",
    "TargetFactory",
    "UserSimulator",
]
