"""The engine: seeds, suite expansion, the session loop, the orchestrator, runs."""

from simlab.engine._expand import SessionJob, expand, session_seed
from simlab.engine._llm_option import target_label
from simlab.engine._orchestrator import run_jobs
from simlab.engine._prefix_cases import run_suite_prefix_cases
from simlab.engine._run import (
    RunPlan,
    config_hash,
    execute,
    plan_new_run,
    plan_resume,
    simulator_factory,
    target_factory,
)
from simlab.engine._seeds import derive_seed
from simlab.engine._session import (
    Judge,
    SessionLimits,
    SessionSetup,
    SimulatorFactory,
    TargetFactory,
    run_session,
    session_setup,
)
from simlab.store import PREFIX_CASES_FILE

__all__ = [
    "PREFIX_CASES_FILE",
    "Judge",
    "RunPlan",
    "SessionJob",
    "SessionLimits",
    "SessionSetup",
    "SimulatorFactory",
    "TargetFactory",
    "config_hash",
    "derive_seed",
    "execute",
    "expand",
    "plan_new_run",
    "plan_resume",
    "run_jobs",
    "run_session",
    "run_suite_prefix_cases",
    "session_seed",
    "session_setup",
    "simulator_factory",
    "target_factory",
    "target_label",
]
