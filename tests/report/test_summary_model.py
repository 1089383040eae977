"""summary.json read as RunSummary keeps every key as a declared, typed field: a run
with a judge, LLM costs, simulator faults, cut output and a grader failure reads back
to the same JSON, and no key is left as an untyped extra."""

from __future__ import annotations

import json

from pydantic import BaseModel

from simlab.core import Check, GraderFailure, SessionKey
from simlab.report import summarize
from simlab.store import RunSummary, SessionRecord, StopReason, Usage

from .conftest import BUCKETS, small_run

# the two models whose extra keys are typed (mode names, stage names)
_KEYED = {"FullVsSharded", "StageShares"}


def _judged(rep: int, judge: bool, failing_grader: bool = False) -> SessionRecord:
    checks = {
        "goal_completed": Check(passed=True),
        "judge": Check(passed=judge, detail="r", criteria={"polite": judge, "moot": None}),
    }
    if failing_grader:
        failure = GraderFailure(type="ValueError", message="bad", traceback="tb")
        checks["tone"] = Check(passed=False, detail="grader raised", error=failure)
    llm = {"judge": {"calls": 2, "retries": 1, "cost_usd": 0.01}}
    return SessionRecord(
        key=SessionKey(persona="carol", goal="g", mode="full", rep=rep),
        seed=rep,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=3,
        planned_turns=3,
        score=100.0,
        passed=not failing_grader,
        checks=checks,
        usage=Usage(input_tokens=10, output_tokens=5, calls=2),
        cost_usd=0.01,
        meta={
            "llm": llm,
            "simulator_faults": [{"kind": "unplanned_fact", "kept": True}],
            "truncated": [{"field": "reply", "chars": 9000}],
            "grader_error": "JudgeError: not JSON" if rep == 3 else None,
        },
    )


def _untyped(model: object, path: str) -> list[str]:
    if isinstance(model, BaseModel):
        extra = model.__pydantic_extra__ or {}
        keyed = type(model).__name__ in _KEYED
        found = [] if keyed or not extra else [f"{path}: {sorted(extra)}"]
        for name in type(model).model_fields:
            found += _untyped(getattr(model, name), f"{path}.{name}")
        if keyed:
            for name, value in extra.items():
                found += _untyped(value, f"{path}.{name}")
        return found
    if isinstance(model, dict):
        return [f for k, v in model.items() for f in _untyped(v, f"{path}[{k}]")]
    if isinstance(model, tuple):
        return [f for i, v in enumerate(model) for f in _untyped(v, f"{path}[{i}]")]
    return []


def test_every_key_of_a_summary_is_a_typed_field_and_reads_back_the_same() -> None:
    records = [
        *small_run(),
        *(_judged(i, judge=i % 2 == 0, failing_grader=i == 1) for i in range(4)),
    ]
    written = json.loads(json.dumps(summarize(records, BUCKETS, seed=3, n_resamples=50)))
    assert written["judge"] and written["grader_failures"] and written["cost"]["by_role"]
    summary = RunSummary.model_validate(written)
    assert _untyped(summary, "summary") == []
    assert summary.model_dump(mode="json", exclude_unset=True) == written
    assert summary.judge is not None and summary.judge.criteria["polite"].n == 4
    assert summary.grader_failures is not None and summary.grader_failures.by_check == {"tone": 1}
    assert summary.full_vs_sharded.modes["full"].n_cells > 0


def test_an_older_summary_reads_with_its_missing_sections_empty() -> None:
    # schema 1: no lengths, no realised length, no tool sections, no failed sessions
    old = {"schema_version": 1, "overall": {"n": 3, "passes": 2, "pass_rate": 0.666667}}
    summary = RunSummary.model_validate(old)
    assert summary.lengths is None and summary.tool_stages is None and summary.judge is None
    assert summary.n_sessions == 3 and summary.errors.n == 0
    assert RunSummary.model_validate({**old, "judge": {}}).judge is None
