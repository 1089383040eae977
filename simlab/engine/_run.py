"""A whole run: plan it from a suite, create or resume its directory, execute it."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simlab.contracts import SimulatorFactory, TargetFactory
from simlab.core import simlab_version
from simlab.engine._expand import SessionJob, expand
from simlab.engine._llm_option import apply_llm_options
from simlab.engine._orchestrator import run_jobs
from simlab.engine._roles import RunRoles, build_roles
from simlab.engine._session import SessionLimits, run_session
from simlab.spec import (
    Goal,
    OutputLimits,
    Persona,
    Suite,
    load_agent_spec,
    load_goals,
    load_personas,
    load_suite,
)
from simlab.store import (
    RUN_FILE,
    SCHEMA_VERSION,
    RunDirError,
    RunLock,
    SessionRecord,
    SessionWriter,
    read_run_info,
    read_sessions,
    read_sessions_locked,
    slim_record,
    write_json,
)


@dataclass
class RunPlan:
    """A run ready to execute: its sessions, where they go, and what is already done."""

    suite: Suite
    suite_path: Path
    run_dir: Path
    jobs: list[SessionJob]
    config_hash: str
    done: list[SessionRecord] = field(default_factory=list)
    truncate_to: int | None = None
    retried: list[SessionRecord] = field(default_factory=list)
    """Error records whose sessions run again (``--retry-errors``); not in ``done``."""
    spent_usd: float = 0.0
    """What the sessions already in ``sessions.jsonl`` cost, retried ones included."""
    lock: RunLock | None = None
    """A resumed run's lock, taken before its sessions were read; the writer keeps it."""

    @property
    def pending(self) -> list[SessionJob]:
        """The sessions still to run (all of them on a fresh run), retried ones included."""
        finished = {r.key for r in self.done}
        return [j for j in self.jobs if j.key not in finished]


def _library_dirs(suite_path: Path, dirs: list[str]) -> list[Path]:
    base = suite_path.parent
    return [base / d for d in dirs]


def config_hash(
    suite: Suite,
    personas: dict[str, Persona],
    goals: dict[str, Goal],
    files: dict[str, str] | None = None,
) -> str:
    """sha256 over everything that decides a run's sessions (``files``: the sha256 of
    each file the suite points to, so an edited agent or prompt is a changed config)."""
    payload = {
        "files": files or {},
        "schema_version": SCHEMA_VERSION,
        "suite": _hashed_suite(suite),
        "personas": {k: v.model_dump(mode="json") for k, v in sorted(personas.items())},
        "goals": {k: v.model_dump(mode="json") for k, v in sorted(goals.items())},
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _hashed_suite(suite: Suite) -> dict[str, Any]:
    # how much to spend and how many at once do not change what a session is, so a
    # run resumes with another budget or concurrency; settings added later are left
    # out at their defaults, so runs started before they existed keep their hash
    fields = {"budget_usd", "concurrency"}
    if suite.limits == OutputLimits():
        fields.add("limits")
    dumped = suite.model_dump(mode="json", exclude=fields)
    if dumped["target"].get("isolation") == "thread":
        del dumped["target"]["isolation"]
    return dumped


def _load(
    suite_path: Path, seed: int | None, reps: int | None = None, llm: Sequence[str] = ()
) -> tuple[Suite, list[SessionJob], str]:
    suite = load_suite(suite_path)
    overrides = {k: v for k, v in (("seed", seed), ("reps", reps)) if v is not None}
    if overrides:
        suite = suite.model_copy(update=overrides)
    suite = apply_llm_options(suite, llm)
    personas = load_personas(_library_dirs(suite_path, suite.persona_dirs))
    goals = load_goals(_library_dirs(suite_path, suite.goal_dirs))
    jobs = expand(suite, personas, goals)
    used_p = {j.persona.id: j.persona for j in jobs}
    used_g = {j.goal.id: j.goal for j in jobs}
    files = referenced_files(suite, suite_path.parent)
    return suite, jobs, config_hash(suite, used_p, used_g, files)


def referenced_files(suite: Suite, suite_dir: Path) -> dict[str, str]:
    """sha256 of every file the suite's roles read: the LLM agent (and its system
    prompt file), the simulator's prompts, the judge's rubric."""
    paths: list[Path] = []
    target = suite.target
    if target.kind == "llm":
        agent = _under(suite_dir, target.agent)
        paths.append(agent)
        if agent.is_file():
            prompt = load_agent_spec(agent).system_prompt_file
            if prompt:
                paths.append(_under(agent.parent, prompt))
    if suite.simulator.kind == "llm" and suite.simulator.prompt:
        paths.append(_under(suite_dir, suite.simulator.prompt))
    if suite.judge is not None and suite.judge.rubric:
        paths.append(_under(suite_dir, suite.judge.rubric))
    found: dict[str, str] = {}
    for path in paths:
        for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if f.is_file():
                # keyed relative to the suite, so a moved checkout resumes the same run
                found[os.path.relpath(f, suite_dir)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return found


def _under(base: Path, relative: str) -> Path:
    p = Path(relative)
    return p if p.is_absolute() else base / p


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, unique run id: ``YYYYmmdd-HHMMSS-xxxx``."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def plan_new_run(
    suite_path: Path,
    out: Path,
    seed: int | None = None,
    reps: int | None = None,
    llm: Sequence[str] = (),
) -> RunPlan:
    """Load the suite (``seed``, ``reps`` override it), create the run folder, write run.json."""
    suite, jobs, chash = _load(suite_path, seed, reps, llm)
    run_id = new_run_id()
    run_dir = out / run_id
    run_dir.mkdir(parents=True, exist_ok=False)
    info = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "simlab_version": simlab_version(),
        "config_hash": chash,
        "suite_path": str(suite_path.resolve()),
        # command-line overrides, reapplied on resume
        "overrides": {"seed": seed, "reps": reps, "llm": list(llm)},
        "suite": suite.model_dump(mode="json"),
        "n_sessions": len(jobs),
        "personas": sorted({j.persona.id for j in jobs}),
        "goals": sorted({j.goal.id for j in jobs}),
        "models": {},  # filled in when the roles are built
        "pricing": {},
    }
    write_json(run_dir / RUN_FILE, info)
    return RunPlan(suite, suite_path, run_dir, jobs, chash)


def plan_resume(
    run_dir: Path, suite_path: Path | None = None, retry_errors: bool = False, lock: bool = True
) -> RunPlan:
    """Reload a run's suite, check it is unchanged, and find the sessions still to run.

    Args:
        run_dir: The run directory to continue.
        suite_path: The suite file, when not the one ``run.json`` names.
        retry_errors: Also run again, with the same seed, every key whose outcome
            is ``status="error"`` (infra, agent, simulator errors and timeouts:
            never a verdict on the target). The new record is appended and
            supersedes the error record when the run is read.
        lock: Take the run's one-writer lock before reading its sessions, and
            keep it in the plan for ``execute``; the plan's records are then slim
            (``store.slim_record``: no transcript), so resuming a large run holds
            little. False for a plan only read, with full records (a diagnosis).
            Raises ``RunDirError`` when another process holds the lock.
    """
    info = read_run_info(run_dir)
    if suite_path is None and "suite_path" not in info:
        raise RunDirError(f"{run_dir}/run.json names no suite_path; pass the suite file")
    path = suite_path or Path(info["suite_path"])
    overrides = info.get("overrides", {})
    suite, jobs, chash = _load(
        path, overrides.get("seed"), overrides.get("reps"), overrides.get("llm", ())
    )
    if chash != info.get("config_hash"):
        raise RunDirError(
            f"{run_dir} was run with config {info['config_hash']} but {path} and its personas "
            f"and goals now give {chash}: they changed since the run started. Restore them, "
            "or start a new run instead of resuming."
        )
    run_lock: RunLock | None = None
    if lock:  # locked before reading: see RunLock
        run_lock, existing = read_sessions_locked(run_dir, slim=True)
    else:
        existing = read_sessions(run_dir)
    wanted = {j.key for j in jobs}
    outcomes = [r for r in existing.records if r.key in wanted]
    retried = [r for r in outcomes if r.status == "error"] if retry_errors else []
    done = [r for r in outcomes if not (retry_errors and r.status == "error")]
    truncate = existing.good_bytes if existing.torn else None
    return RunPlan(
        suite, path, run_dir, jobs, chash, done, truncate, retried, existing.cost_usd, run_lock
    )


def target_factory(suite: Suite, suite_dir: Path | None = None) -> TargetFactory:
    """Per-session target construction for the suite's target (for replays outside a run)."""
    return build_roles(suite, suite_dir or Path.cwd(), parts=("agent",)).target


def simulator_factory(suite: Suite, suite_dir: Path | None = None) -> SimulatorFactory:
    """Per-session simulated-user construction for the suite's simulator."""
    return build_roles(suite, suite_dir or Path.cwd(), parts=("user",)).simulator


async def execute(
    plan: RunPlan,
    on_record: Callable[[SessionRecord], None] = lambda r: None,
    make_target: TargetFactory | None = None,
    make_simulator: SimulatorFactory | None = None,
    slim: bool = False,
) -> list[SessionRecord]:
    """Run the plan's pending sessions, appending each to ``sessions.jsonl``.

    ``slim``: hand back each new record as ``store.slim_record`` makes it (no
    transcript), so a run's memory does not grow by 60 KB per finished session;
    its reports read the file.

    Returns each key's outcome, earlier records (on resume) included, in the
    suite's session order: a retried session's new record replaces its error
    record, as reading the run does. When the suite's budget is spent no new
    session starts; the ones in flight finish.
    """
    suite = plan.suite
    roles = build_roles(suite, plan.suite_path.parent)
    _record_roles(plan.run_dir, roles)
    # what the sessions already run cost (retried ones too) counts against the budget
    roles.budget.charge(plan.spent_usd)
    make_target = make_target or roles.target
    make_simulator = make_simulator or roles.simulator
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    # a retried key keeps its error record until it has a new one (a budget may stop it)
    outcomes = {r.key: r for r in (*plan.done, *plan.retried)}

    with SessionWriter(plan.run_dir, plan.truncate_to, plan.lock) as writer:

        def sink(record: SessionRecord) -> None:
            writer.append(record)
            outcomes[record.key] = slim_record(record) if slim else record
            on_record(record)

        async def runner(job: SessionJob) -> SessionRecord:
            return await run_session(job, make_target, make_simulator, limits, judge=roles.judge)

        # Records and transcripts pile up for the whole run; the default thresholds
        # make the collector rescan them over and over (it dominated profiles).
        gc.freeze()
        thresholds = gc.get_threshold()
        gc.set_threshold(50_000, 50, 1_000)
        try:
            await run_jobs(
                plan.pending,
                runner,
                min(suite.concurrency, roles.max_sessions or suite.concurrency),
                sink,
                should_start=lambda: not roles.budget.exhausted,
            )
        finally:
            gc.set_threshold(*thresholds)
            gc.unfreeze()
            await roles.aclose()
    order = {j.key: i for i, j in enumerate(plan.jobs)}
    return sorted(outcomes.values(), key=lambda r: order.get(r.key, len(order)))


def _record_roles(run_dir: Path, roles: RunRoles) -> None:
    """Pin the model ids and the prices in force into run.json."""
    info = read_run_info(run_dir)
    info["models"] = roles.models
    info["pricing"] = roles.prices.as_json()
    info["budget_usd"] = roles.budget.usd
    write_json(run_dir / RUN_FILE, info)
