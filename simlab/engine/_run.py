"""A whole run: plan it from a suite, create or resume its directory, execute it."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simlab.contracts import SimulatorFactory, TargetFactory
from simlab.core import simlab_version
from simlab.engine._contain import contained, written
from simlab.engine._executors import choose_executor
from simlab.engine._expand import SessionJob, expand
from simlab.engine._hashes import RunHashes, run_hashes
from simlab.engine._llm_option import apply_llm_options
from simlab.engine._roles import RunRoles, build_roles, refuse_unknown_budget
from simlab.engine._session import SessionLimits, run_session
from simlab.engine._source import NO_OVERRIDES, RoleOverrides, SuiteSource
from simlab.spec import (
    Goal,
    Persona,
    SpecError,
    Suite,
    check_fit,
    load_goals,
    load_personas,
)
from simlab.store import (
    RUN_FILE,
    SCHEMA_VERSION,
    RunDirError,
    RunInfo,
    RunLock,
    SessionRecord,
    SessionWriter,
    read_run_info,
    read_sessions,
    read_sessions_locked,
    slim_record,
    write_json,
    write_run_info,
)


@dataclass
class RunPlan:
    """A run ready to execute: its sessions, where they go, and what is already done."""

    suite: Suite
    source: SuiteSource
    run_dir: Path
    jobs: list[SessionJob]
    config_hash: str
    done: list[SessionRecord] = field(default_factory=list)
    truncate_to: int | None = None
    retried: list[SessionRecord] = field(default_factory=list)
    """Error records whose sessions run again (``--retry-errors``); not in ``done``."""
    spent_usd: float | None = 0.0
    """What the sessions already in ``sessions.jsonl`` cost, retried ones included
    (None: some of it unknown)."""
    overrides: RoleOverrides = NO_OVERRIDES
    """Roles the caller gave instead of the suite's (recorded in run.json, hashed)."""
    lock: RunLock | None = None
    """A resumed run's lock, taken before its sessions were read; the writer keeps it."""

    @property
    def suite_dir(self) -> Path:
        """The folder the suite's relative paths start from."""
        return self.source.base_dir

    @property
    def pending(self) -> list[SessionJob]:
        """The sessions still to run (all of them on a fresh run), retried ones included."""
        finished = {r.key for r in self.done}
        return [j for j in self.jobs if j.key not in finished]


def _load(
    source: SuiteSource,
    seed: int | None,
    reps: int | None = None,
    llm: Sequence[str] = (),
    overrides: RoleOverrides = NO_OVERRIDES,
) -> tuple[Suite, list[SessionJob], RunHashes]:
    suite = source.suite
    changes = {k: v for k, v in (("seed", seed), ("reps", reps)) if v is not None}
    if changes:
        suite = suite.model_copy(update=changes)
    suite = apply_llm_options(suite, llm)
    base = source.base_dir
    personas = source.personas or load_personas([base / d for d in suite.persona_dirs])
    goals = source.goals or load_goals([base / d for d in suite.goal_dirs])
    # a goal its domain cannot voice fails here, with file:line, not as simulator errors
    graders = None if overrides.graders is None else [g.name for g in overrides.graders]
    check_fit(suite, base, source.personas, source.goals, source.path, graders)
    jobs = expand(suite, personas, goals)
    used_p = {j.persona.id: j.persona for j in jobs}
    used_g = {j.goal.id: j.goal for j in jobs}
    return suite, jobs, run_hashes(suite, used_p, used_g, base, overrides.names())


def new_run_id(now: datetime | None = None, taken: Iterable[str] = ()) -> str:
    """A sortable, unique run id: ``YYYYmmdd-HHMMSS-xxxx``.

    ``xxxx`` is random (in its lower half, leaving room above it), except when a run
    of ``taken`` (the results folder's) started in the same second: then it is the next
    after theirs, so runs sort in the order they started (``simlab runs`` draws its
    trend in that order).
    """
    now = now or datetime.now(UTC)
    second = f"{now:%Y%m%d-%H%M%S}"
    same = [int(t[16:20], 16) for t in taken if t[:16] == f"{second}-" and _hex4(t[16:20])]
    if same and max(same) < 0xFFFF:
        return f"{second}-{max(same) + 1:04x}"
    return f"{second}-{secrets.randbelow(0x8000):04x}"


def _hex4(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdef" for c in text)


def plan_new_run(
    source: SuiteSource | Path,
    out: Path,
    seed: int | None = None,
    reps: int | None = None,
    llm: Sequence[str] = (),
    overrides: RoleOverrides = NO_OVERRIDES,
    fields: Mapping[str, Any] | None = None,
) -> RunPlan:
    """Load the suite (``seed``, ``reps`` override it), create the run folder, write run.json.

    ``fields``: the suite's fields the caller replaced (a ``--target``), as JSON; kept
    in run.json and put back into the suite file's content on resume and diagnosis.
    """
    if isinstance(source, Path):
        source = SuiteSource.from_file(source)
    suite, jobs, hashes = _load(source, seed, reps, llm, overrides)
    run_id = new_run_id(taken=(p.name for p in out.iterdir()) if out.is_dir() else ())
    run_dir = out / run_id
    run_dir.mkdir(parents=True, exist_ok=False)
    info = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "simlab_version": simlab_version(),
        "config_hash": hashes.config,
        "test_hash": hashes.test,
        "suite_path": None if source.path is None else str(source.path.resolve()),
        "suite_dir": str(source.base_dir.resolve()),
        # command-line overrides, reapplied on resume; roles given in code by name
        "overrides": {
            "seed": seed,
            "reps": reps,
            "llm": list(llm),
            **overrides.names(),
            **({"suite_fields": dict(fields)} if fields else {}),
        },
        "suite": suite.model_dump(mode="json"),
        "n_sessions": len(jobs),
        "personas": sorted({j.persona.id for j in jobs}),
        "goals": sorted({j.goal.id for j in jobs}),
        # a suite built in code has no files to reload: its personas and goals are kept
        "inline": _inline_specs(source, jobs),
        "models": {},  # filled in when the roles are built
        "pricing": {},
    }
    write_json(run_dir / RUN_FILE, info)
    return RunPlan(suite, source, run_dir, jobs, hashes.config, overrides=overrides)


def _inline_specs(source: SuiteSource, jobs: list[SessionJob]) -> dict[str, Any]:
    inline: dict[str, Any] = {}
    if source.personas is not None:
        used = {j.persona.id: j.persona for j in jobs}
        inline["personas"] = [p.model_dump(mode="json") for _, p in sorted(used.items())]
    if source.goals is not None:
        used_goals = {j.goal.id: j.goal for j in jobs}
        inline["goals"] = [g.model_dump(mode="json") for _, g in sorted(used_goals.items())]
    return inline


def source_of_run(info: RunInfo, suite_path: Path | None = None) -> SuiteSource:
    """The suite a run was started from: its file (or ``suite_path``), else run.json's copy.

    Raises:
        RunDirError: the suite file is gone and run.json holds no copy to resume from.
    """
    path = suite_path or (Path(info.suite_path) if info.suite_path else None)
    if path is not None:
        return SuiteSource.from_file(path)
    base = Path(info.suite_dir or Path.cwd())
    personas = {p["id"]: Persona.model_validate(p) for p in info.inline.get("personas", [])}
    goals = {g["id"]: Goal.model_validate(g) for g in info.inline.get("goals", [])}
    suite = info.suite
    # the copy already carries the run's seed and reps: do not apply them twice
    return SuiteSource(suite, base, None, personas or None, goals or None)


def with_suite_fields(source: SuiteSource, fields: Mapping[str, Any] | None) -> SuiteSource:
    """``source`` with the suite fields a run replaced (``--target``) put back in."""
    if not fields:
        return source
    suite = Suite.model_validate({**source.suite.model_dump(mode="json"), **fields})
    return replace(source, suite=suite)


def plan_resume(
    run_dir: Path,
    suite_path: Path | None = None,
    retry_errors: bool = False,
    overrides: RoleOverrides = NO_OVERRIDES,
    lock: bool = True,
    source: SuiteSource | None = None,
) -> RunPlan:
    """Reload a run's suite, check it is unchanged, and find the sessions still to run.

    Args:
        run_dir: The run directory to continue.
        suite_path: The suite file, when not the one ``run.json`` names.
        retry_errors: Also run again, with the same seed, every key whose outcome
            is ``status="error"`` (infra, agent, simulator errors and timeouts:
            never a verdict on the target). The new record is appended and
            supersedes the error record when the run is read.
        overrides: The roles given in place of the suite's; they must be the
            ones the run started with.
        lock: Take the run's one-writer lock before reading its sessions, and
            keep it in the plan for ``execute``; the plan's records are then slim
            (``store.slim_record``: no transcript), so resuming a large run holds
            little. False for a plan only read, with full records (a diagnosis).
        source: The suite given again in code (a ``Suite`` with its personas and
            goals): it must be the one the run started with, as a file must.

    Raises:
        RunDirError: the run cannot be read, or its configuration (suite,
            personas, goals, files, overridden roles) changed, or another
            process holds its lock.
    """
    info = read_run_info(run_dir)
    source = source or source_of_run(info, suite_path)
    recorded = info.overrides
    source = with_suite_fields(source, recorded.get("suite_fields"))
    suite, jobs, hashes = _load(
        source, recorded.get("seed"), recorded.get("reps"), recorded.get("llm", ()), overrides
    )
    chash = hashes.config
    if chash != info.config_hash:
        raise RunDirError(_changed_config(run_dir, info, source, overrides))
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
        suite,
        source,
        run_dir,
        jobs,
        chash,
        done,
        truncate,
        retried,
        existing.cost_usd,
        overrides,
        run_lock,
    )


def _changed_config(
    run_dir: Path, info: RunInfo, source: SuiteSource, overrides: RoleOverrides
) -> str:
    """Why a run cannot be resumed as it is now configured."""
    recorded = info.overrides
    now = overrides.names()
    for role in ("target", "simulator", "graders"):
        if recorded.get(role) != now.get(role):
            was = recorded.get(role) or "the suite's own"
            given = now.get(role) or "the suite's own"
            hint = (
                f" (from Python: simlab.run(..., {role}=<the same object>, resume=...))"
                if role in recorded
                else ""
            )
            return (
                f"{run_dir} was run with {role} {was} but this resume gives {given}: a run "
                f"continues with the parts it started with; give the same {role}{hint}, or "
                "start a new run"
            )
    where = source.path or "its suite"
    return (
        f"{run_dir} was run with config {info.config_hash} but {where} and its personas "
        "and goals now give another: they changed since the run started. Restore them, "
        "or start a new run instead of resuming."
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
    its reports read the file. ``on_record`` gets each finished session's record
    (with ``slim``, the slim one when the session ran on a Ray worker: the driver
    does not parse the whole record it only writes).

    Returns each key's outcome, earlier records (on resume) included, in the
    suite's session order: a retried session's new record replaces its error
    record, as reading the run does. When the suite's budget is spent no new
    session starts; the ones running finish.
    """
    suite = plan.suite
    roles = build_roles(suite, plan.suite_dir)
    try:
        refuse_unknown_budget(suite, roles)
    except SpecError:
        await roles.aclose()
        raise
    in_code = _given_in_code(plan.overrides, make_target, make_simulator)
    make_target = make_target or plan.overrides.target or roles.target
    make_simulator = make_simulator or plan.overrides.simulator or roles.simulator
    graders = list(plan.overrides.graders) if plan.overrides.graders else roles.graders
    if plan.overrides.target_name is not None:
        roles.models["agent"] = plan.overrides.target_name
    if plan.overrides.simulator_name is not None:
        roles.models["user"] = plan.overrides.simulator_name
    _record_roles(plan.run_dir, roles)
    # what the sessions already run cost (retried ones too) counts against the budget
    roles.budget.charge(plan.spent_usd)
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    # a retried key keeps its error record until it has a new one (a budget may stop it)
    outcomes = {r.key: r for r in (*plan.done, *plan.retried)}

    with SessionWriter(plan.run_dir, plan.truncate_to, plan.lock) as writer:

        def sink(record: SessionRecord, line: bytes | None = None) -> None:
            if line is None:
                record, line = written(record)  # text escaped, or its error record
                writer.append_line(line)
                kept = slim_record(record) if slim else record
            else:  # serialized where it ran, ``record`` its slim record
                writer.append_line(line)
                kept = slim_record(record) if slim else SessionRecord.model_validate_json(line)
                record = kept
            outcomes[record.key] = kept
            on_record(record)

        @contained  # whatever one session raises is its error record, not the run's end
        async def runner(job: SessionJob) -> SessionRecord:
            return await run_session(
                job, make_target, make_simulator, limits,
                judge=roles.judge, graders=graders, grading=suite.grading,
                domains=roles.domains,
            )  # fmt: skip

        try:
            executor = choose_executor(
                suite,
                plan.suite_dir,
                plan.jobs,
                runner,
                min(suite.concurrency, roles.max_sessions or suite.concurrency),
                roles.budget,
                in_code,
            )
            await executor.run(plan.pending, sink, lambda: not roles.budget.exhausted)
        finally:
            await roles.aclose()
    order = {j.key: i for i, j in enumerate(plan.jobs)}
    return sorted(outcomes.values(), key=lambda r: order.get(r.key, len(order)))


def _given_in_code(
    overrides: RoleOverrides,
    make_target: TargetFactory | None,
    make_simulator: SimulatorFactory | None,
) -> list[str]:
    """The roles given as Python objects rather than named in the suite."""
    given = {
        "target": make_target or overrides.target,
        "simulator": make_simulator or overrides.simulator,
        "graders": overrides.graders,
    }
    return [role for role, part in given.items() if part]


def _record_roles(run_dir: Path, roles: RunRoles) -> None:
    """Pin the model ids and the prices in force into run.json."""
    info = read_run_info(run_dir).model_copy(
        update={
            "models": roles.models,
            "pricing": roles.prices.as_json(),
            "budget_usd": roles.budget.usd,
        }
    )
    write_run_info(run_dir, info)
