"""The engine: suite expansion, the session loop, the orchestrator, runs."""

from simlab.engine._brief import BriefPlayer, RunBrief
from simlab.engine._executors import LocalExecutor, SessionExecutor, choose_executor
from simlab.engine._expand import SessionJob, expand, session_seed
from simlab.engine._hashes import RunHashes, config_hash, hashed_test, run_hashes
from simlab.engine._llm_option import target_label
from simlab.engine._orchestrator import run_jobs
from simlab.engine._ray import RayExecutor
from simlab.engine._roles import RunRoles, build_roles, run_scoring, scripted_simulator_factory
from simlab.engine._run import (
    RunPlan,
    execute,
    plan_new_run,
    plan_resume,
    simulator_factory,
    source_of_run,
    target_factory,
)
from simlab.engine._run_size import CONFIRM_ABOVE, RunEstimate, estimate_run
from simlab.engine._session import (
    BUILTIN_SCORING,
    Scoring,
    SessionLimits,
    run_session,
    session_setup,
    unrun_record,
)
from simlab.engine._source import NO_OVERRIDES, RoleOverrides, SuiteSource

__all__ = [
    "BUILTIN_SCORING",
    "CONFIRM_ABOVE",
    "NO_OVERRIDES",
    "BriefPlayer",
    "LocalExecutor",
    "RayExecutor",
    "RoleOverrides",
    "RunBrief",
    "RunEstimate",
    "RunHashes",
    "RunPlan",
    "RunRoles",
    "Scoring",
    "SessionExecutor",
    "SessionJob",
    "SessionLimits",
    "SuiteSource",
    "build_roles",
    "choose_executor",
    "config_hash",
    "estimate_run",
    "execute",
    "expand",
    "hashed_test",
    "plan_new_run",
    "plan_resume",
    "run_hashes",
    "run_jobs",
    "run_scoring",
    "run_session",
    "scripted_simulator_factory",
    "session_seed",
    "session_setup",
    "simulator_factory",
    "source_of_run",
    "target_factory",
    "target_label",
    "unrun_record",
]
