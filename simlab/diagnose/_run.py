"""Diagnose a finished run: locate, classify, verify by replay, measure against the truth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from simlab.agents import TargetLoadError
from simlab.core import SessionKey
from simlab.diagnose._classify import (
    DEFAULT_LATE_TURN,
    Classification,
    classify_in_view,
    classify_multi_turn,
    without_internals,
)
from simlab.diagnose._counterfactual import (
    COUNTERFACTUAL,
    REPLAYS,
    Replay,
    fixes,
    missing_capability,
    replay_plan,
    run_replays,
    specific_verdict,
    target_capabilities,
    told_changes,
)
from simlab.diagnose._failure import FirstFailure, first_failure
from simlab.diagnose._heatmap import build_heatmap, transition
from simlab.diagnose._truth import TrueCause, records_truth, true_cause
from simlab.engine import (
    NO_OVERRIDES,
    RoleOverrides,
    RunPlan,
    SessionJob,
    SessionLimits,
    plan_resume,
    run_scoring,
    simulator_factory,
    target_factory,
)
from simlab.graders import CONFIRMATION
from simlab.llm import LLMError
from simlab.spec import DomainSet, Mode, SpecError, load_domains
from simlab.store import (
    DIAGNOSIS_FILE,
    Cause,
    Confusion,
    DiagnosisReport,
    FailureLocation,
    FalseVerification,
    HeatmapData,
    RecordedCause,
    RunDirError,
    SessionDiagnosis,
    SessionRecord,
    Share,
    Verification,
    cause_rows,
    confusion,
    read_run_info,
    write_json,
)

DEFAULT_CONCURRENCY = 32
_MULTI_TURN = frozenset({Cause.TRUNCATION, Cause.ANCHORING, Cause.DRIFT})


_UNKNOWN = Classification(Cause.UNKNOWN, "no rule holds")


@dataclass(slots=True)
class _Case:
    record: SessionRecord
    job: SessionJob
    failure: FirstFailure | None
    found: Classification = field(default_factory=lambda: _UNKNOWN)
    black_box: Classification = field(default_factory=lambda: _UNKNOWN)
    fixed: dict[Replay, bool | None] = field(default_factory=dict)
    passed: dict[Replay, bool | None] = field(default_factory=dict)
    missing: dict[Replay, str] = field(default_factory=dict)
    no_replay: str | None = None


_VERIFIABLE = (Cause.TRUNCATION, Cause.ANCHORING, Cause.DRIFT, Cause.SINGLE_TURN)


def _failures(records: Sequence[SessionRecord], jobs: dict[SessionKey, SessionJob]) -> list[_Case]:
    """Every failed ``ok`` session of the suite, with its first failure located."""
    cases: list[_Case] = []
    for record in records:
        if record.status != "ok" or record.passed or record.key not in jobs:
            continue
        job = jobs[record.key]
        cases.append(_Case(record, job, first_failure(job.goal, record)))
    return cases


def _window_alone(case: _Case) -> bool | None:
    window = case.fixed.get("unlimited_window")
    reminder = case.fixed.get("instruction_reminder")
    if window is None or reminder is None:
        return None
    return window and not reminder


def _classify_all(
    cases: Sequence[_Case],
    records: Sequence[SessionRecord],
    late_turn: int,
    black_box: bool,
    domains: DomainSet | None = None,
) -> list[Classification]:
    """Rules 1-3 for every failed session, then rule 4 (single-turn) over the run.

    With ``black_box`` the classifier sees each record as a black box shows it
    (``without_internals``): the replays' outcomes stand for the view it lacks.
    ``domains`` are the run's (each goal's tells the agent's open questions).
    """
    kept = {
        r.key.goal
        for r in records
        if r.status == "ok"
        and (kept_rule := r.checks.get(CONFIRMATION)) is not None
        and kept_rule.passed
    }
    found: list[Classification] = []
    for c in cases:
        record = without_internals(c.record) if black_box else c.record
        window = c.fixed.get("unlimited_window")
        got = classify_multi_turn(
            c.job.goal,
            record,
            c.failure,
            record.key.goal in kept,
            late_turn,
            _window_alone(c),
            domains.of(c.job.goal.domain) if domains is not None else None,
        )
        found.append(got or classify_in_view(record, c.failure, window) or _UNKNOWN)
    # A full-mode failure that no multi-turn rule explains is a single-turn failure.
    single = {
        (c.record.key.persona, c.record.key.goal)
        for c, f in zip(cases, found, strict=True)
        if c.record.key.mode == Mode.FULL.value and f.cause not in _MULTI_TURN
    }
    for i, c in enumerate(cases):
        pair = (c.record.key.persona, c.record.key.goal)
        if found[i].cause is Cause.UNKNOWN and pair in single:
            found[i] = Classification(
                Cause.SINGLE_TURN,
                f"{pair[0]}/{pair[1]} also fails in full mode for a reason no "
                "multi-turn rule explains",
            )
    return found


async def _replay_all(cases: list[_Case], plan: RunPlan, concurrency: int) -> None:
    """Run every replay the target honours on every failure; record what each fixed."""
    suite = plan.suite
    try:
        make_target = plan.overrides.target or target_factory(suite, plan.suite_dir)
        make_simulator = plan.overrides.simulator or simulator_factory(suite, plan.suite_dir)
    except (TargetLoadError, LLMError, SpecError) as e:  # the target cannot be rebuilt here
        # Diagnose anyway; say why nothing could be replayed.
        for c in cases:
            c.no_replay = f"no replay: {e}"
        return
    if not cases:
        return
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    scoring = run_scoring(suite, plan.suite_dir, plan.overrides)
    caps = target_capabilities(make_target, cases[0].job)
    runnable: list[Replay] = []
    for replay in REPLAYS:
        missing = missing_capability(replay, caps)
        if missing is None:
            runnable.append(replay)
        else:
            for c in cases:
                c.missing[replay] = missing
    todo = [(i, c, r) for r in runnable for i, c in enumerate(cases)]
    told = [told_changes(c.job.goal, c.record) for c in cases]  # once per failure
    plans = [replay_plan(c.job, r, told[i]) for i, c, r in todo]
    done = await run_replays(plans, make_target, make_simulator, limits, concurrency, scoring)
    for (_, c, r), rec in zip(todo, done, strict=True):
        c.fixed[r] = fixes(c.failure, rec)
        c.passed[r] = rec.passed


def _verification(case: _Case) -> Verification | None:
    replay = COUNTERFACTUAL.get(case.found.cause)
    if replay is None:
        return None
    if case.no_replay is not None:
        return Verification(replay=replay, verified=False, outcome=case.no_replay)
    ok, outcome = specific_verdict(case.found.cause, case.fixed, case.missing)
    return Verification(
        replay=replay,
        verified=ok,
        outcome=outcome,
        replay_passed=case.passed.get(replay),
        fixed=dict(case.fixed),
    )


def _false_verification(
    cases: Sequence[_Case], truths: Sequence[TrueCause | None]
) -> tuple[list[FalseVerification], Share | None]:
    """Per cause: how often its rule verifies failures of another true cause (and its own)."""
    judged = [
        (c, t) for c, t in zip(cases, truths, strict=True) if t is not None and c.no_replay is None
    ]
    if not judged:
        return [], None
    rows: list[FalseVerification] = []
    all_k = all_n = 0
    for cause in _VERIFIABLE:
        fk = fn = tk = tn = 0
        for c, t in judged:
            ok, _ = specific_verdict(cause, c.fixed, c.missing)
            if t.cause is cause:
                tk, tn = tk + ok, tn + 1
            else:
                fk, fn = fk + ok, fn + 1
        rows.append(FalseVerification(cause=cause, false=Share.of(fk, fn), true=Share.of(tk, tn)))
        all_k, all_n = all_k + fk, all_n + fn
    return rows, Share.of(all_k, all_n)


def _session(
    case: _Case, verification: Verification | None, truth: TrueCause | None
) -> SessionDiagnosis:
    r, f = case.record, case.failure
    key = r.key
    location = None
    moved = None
    if f is not None:
        location = FailureLocation(
            turn=f.turn,
            check=f.check,
            kind=f.kind,
            fact=f.fact,
            stated_turn=f.stated_turn,
            action_turn=f.action_turn,
        )
        moved = transition(r.transcript, f.turn, case.job.goal.final_tool)
    recorded = None
    agrees = None
    if truth is not None:
        t = truth
        recorded = RecordedCause(recorded=t.recorded, cause=t.cause, turn=t.turn, detail=t.detail)
        agrees = t.cause is case.found.cause
    return SessionDiagnosis(
        key=key.id,
        persona=key.persona,
        goal=key.goal,
        mode=key.mode,
        rep=key.rep,
        first_failure=location,
        cause=case.found.cause,
        evidence=case.found.evidence,
        verification=verification,
        transition=moved,
        true_cause=recorded,
        agrees=agrees,
        black_box_cause=case.black_box.cause,
        black_box_evidence=case.black_box.evidence,
    )


async def diagnose_run_async(
    run_dir: Path,
    concurrency: int = DEFAULT_CONCURRENCY,
    late_turn: int = DEFAULT_LATE_TURN,
    write: bool = True,
    overrides: RoleOverrides = NO_OVERRIDES,
) -> DiagnosisReport:
    """``diagnose_run`` inside a running event loop."""
    info = read_run_info(run_dir)
    plan = plan_resume(run_dir, overrides=overrides, lock=False)  # read only: a run may go on
    jobs = {j.key: j for j in plan.jobs}
    records = plan.done
    cases = _failures(records, jobs)
    await _replay_all(cases, plan, concurrency)
    try:
        domains: DomainSet | None = load_domains(plan.suite.domains, plan.suite_dir)
    except SpecError:  # unreadable now: the replays say why; open questions read by default
        domains = None
    for c, found, black in zip(
        cases,
        _classify_all(cases, records, late_turn, black_box=False, domains=domains),
        _classify_all(cases, records, late_turn, black_box=True, domains=domains),
        strict=True,
    ):
        c.found, c.black_box = found, black
    verifications = [_verification(c) for c in cases]
    truth = any(records_truth(c.record) for c in cases)
    truths = [true_cause(c.record, c.failure) if truth else None for c in cases]
    sessions = [_session(c, v, t) for c, v, t in zip(cases, verifications, truths, strict=True)]
    false_rows, false_all = _false_verification(cases, truths)
    verified = sum(1 for s in sessions if s.verification is not None and s.verification.verified)
    heat = build_heatmap(s.transition for s in sessions if s.transition is not None)
    conf: Confusion | None = confusion(sessions)
    report = DiagnosisReport(
        run_id=info.run_id,
        target=info.models.get("agent", ""),
        n_sessions=len(records),
        n_ok=sum(1 for r in records if r.status == "ok"),
        n_failed=len(cases),
        late_turn=late_turn,
        causes=cause_rows(sessions),
        verified=Share.of(verified, len(sessions)),
        confusion=conf,
        black_box=confusion(sessions, black_box=True),
        false_verification=false_rows,
        false_verification_all=false_all,
        heatmap=HeatmapData(
            from_states=heat.from_states, in_states=heat.in_states, counts=heat.counts, n=heat.n
        ),
        sessions=sessions,
    )
    if write:
        write_json(run_dir / DIAGNOSIS_FILE, report.model_dump(mode="json"))
    return report


def diagnose_run(
    run_dir: Path | str,
    concurrency: int = DEFAULT_CONCURRENCY,
    late_turn: int = DEFAULT_LATE_TURN,
    write: bool = True,
) -> DiagnosisReport:
    """Diagnose every failed ``ok`` session of a finished run.

    Locates each first failure, classifies its cause by code, verifies the
    diagnosis by counterfactual replay through the engine (``concurrency``
    replays at once), measures it against the agent's recorded true causes
    when it has them, and builds the first-failure transition heatmap.

    Args:
        run_dir: A run directory (``run.json`` + ``sessions.jsonl``).
        concurrency: Replays running at once.
        late_turn: The first user turn that counts as late for drift.
        write: Write ``run_dir/diagnosis.json`` (atomically).

    Returns:
        The report.

    Raises:
        RunDirError: ``run_dir`` is not a readable run, or its suite changed.
    """
    path = Path(run_dir)
    if not path.is_dir():
        raise RunDirError(f"{path} is not a directory: give a run directory (results/<run_id>)")
    return anyio.run(diagnose_run_async, path, concurrency, late_turn, write)
