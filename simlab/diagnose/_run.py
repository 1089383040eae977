"""Diagnose a finished run: locate, classify, verify by replay, measure against the truth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from simlab.agents import TargetLoadError
from simlab.core import SessionKey
from simlab.diagnose._classify import (
    DEFAULT_LATE_TURN,
    Classification,
    classify_in_view,
    classify_multi_turn,
)
from simlab.diagnose._counterfactual import (
    COUNTERFACTUAL,
    missing_capability,
    replay_plan,
    run_replays,
    target_capabilities,
    verdict,
)
from simlab.diagnose._failure import FirstFailure, first_failure
from simlab.diagnose._heatmap import build_heatmap, transition
from simlab.diagnose._truth import records_truth, true_cause
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
from simlab.spec import Mode, SpecError
from simlab.store import (
    DIAGNOSIS_FILE,
    Cause,
    Confusion,
    DiagnosisReport,
    FailureLocation,
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


@dataclass(slots=True)
class _Case:
    record: SessionRecord
    job: SessionJob
    failure: FirstFailure | None
    found: Classification


def _classify_all(
    records: Sequence[SessionRecord], jobs: dict[SessionKey, SessionJob], late_turn: int
) -> list[_Case]:
    """Rules 1-3 for every failed session, then rule 4 (single-turn) over the run."""
    kept = {
        r.key.goal
        for r in records
        if r.status == "ok"
        and (kept_rule := r.checks.get(CONFIRMATION)) is not None
        and kept_rule.passed
    }
    cases: list[_Case] = []
    for record in records:
        if record.status != "ok" or record.passed or record.key not in jobs:
            continue
        job = jobs[record.key]
        failure = first_failure(job.goal, record)
        found = classify_multi_turn(job.goal, record, failure, record.key.goal in kept, late_turn)
        found = found or classify_in_view(record, failure)
        unknown = Classification(Cause.UNKNOWN, "no rule holds")
        cases.append(_Case(record, job, failure, found or unknown))
    # A full-mode failure that no multi-turn rule explains is a single-turn failure.
    single = {
        (c.record.key.persona, c.record.key.goal)
        for c in cases
        if c.record.key.mode == Mode.FULL.value and c.found.cause not in _MULTI_TURN
    }
    for c in cases:
        pair = (c.record.key.persona, c.record.key.goal)
        if c.found.cause is Cause.UNKNOWN and pair in single:
            c.found = Classification(
                Cause.SINGLE_TURN,
                f"{pair[0]}/{pair[1]} also fails in full mode for a reason no "
                "multi-turn rule explains",
            )
    return cases


async def _verify(cases: list[_Case], plan: RunPlan, concurrency: int) -> list[Verification | None]:
    out: list[Verification | None] = [None] * len(cases)
    suite = plan.suite
    try:
        make_target = plan.overrides.target or target_factory(suite, plan.suite_dir)
        make_simulator = plan.overrides.simulator or simulator_factory(suite, plan.suite_dir)
    except (TargetLoadError, LLMError, SpecError) as e:  # the target cannot be rebuilt here
        # Diagnose anyway; say why nothing could be replayed.
        for i, c in enumerate(cases):
            if (replay := COUNTERFACTUAL.get(c.found.cause)) is not None:
                out[i] = Verification(replay=replay, verified=False, outcome=f"no replay: {e}")
        return out
    limits = SessionLimits(suite.max_turns, suite.turn_timeout_s, suite.limits)
    scoring = run_scoring(suite, plan.suite_dir, plan.overrides)
    todo: list[int] = []
    caps = target_capabilities(make_target, cases[0].job) if cases else None
    for i, c in enumerate(cases):
        replay = COUNTERFACTUAL.get(c.found.cause)
        if replay is None or caps is None:
            continue
        missing = missing_capability(replay, caps)
        if missing is not None:
            out[i] = Verification(
                replay=replay, verified=False, outcome=f"the target does not honour {missing}"
            )
            continue
        todo.append(i)
    plans = [replay_plan(cases[i].job, COUNTERFACTUAL[cases[i].found.cause]) for i in todo]
    records = await run_replays(plans, make_target, make_simulator, limits, concurrency, scoring)
    for i, rec in zip(todo, records, strict=True):
        c = cases[i]
        check = c.failure.check if c.failure is not None else ""
        ok, outcome = verdict(c.found.cause, check, rec)
        out[i] = Verification(
            replay=COUNTERFACTUAL[c.found.cause],
            verified=ok,
            outcome=outcome,
            replay_passed=rec.passed,
        )
    return out


def _session(case: _Case, verification: Verification | None, truth: bool) -> SessionDiagnosis:
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
    if truth:
        t = true_cause(r, f)
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
    cases = _classify_all(records, jobs, late_turn)
    verifications = await _verify(cases, plan, concurrency)
    truth = any(records_truth(c.record) for c in cases)
    sessions = [_session(c, v, truth) for c, v in zip(cases, verifications, strict=True)]
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
        concurrency: Replays in flight at once.
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
