"""Resuming a run in process: which sessions run again, what they replace, what they cost."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from simlab.contracts import SessionSetup, TargetAgent, TargetFactory
from simlab.engine import RunPlan, execute, plan_new_run, plan_resume, target_factory
from simlab.store import SessionError, SessionRecord, SessionWriter, read_sessions

ROOT = Path(__file__).resolve().parents[2]


def write_suite(tmp_path: Path, budget_usd: float) -> Path:
    suite = {
        "name": "resume",
        "seed": 3,
        "personas": ["terse_en"],
        "goals": ["refund"],
        "modes": ["full", "sharded"],
        "reps": 2,
        "target": "reference:v1",
        "budget_usd": budget_usd,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def down_for_rep_1(plan: RunPlan) -> TargetFactory:
    """The suite's target, whose construction fails for rep-1 sessions (an outage)."""
    healthy = target_factory(plan.suite, plan.suite_dir)

    def make(setup: SessionSetup) -> TargetAgent:
        if setup.key.rep == 1:
            raise ConnectionError("provider outage")
        return healthy(setup)

    return make


def run(plan: RunPlan, make_target: TargetFactory | None = None) -> list[SessionRecord]:
    return anyio.run(lambda: execute(plan, make_target=make_target))


def test_retry_errors_reruns_error_keys_only_and_their_cost_stays_charged(
    tmp_path: Path,
) -> None:
    plan = plan_new_run(write_suite(tmp_path, budget_usd=0.1), tmp_path / "out")
    first = run(plan, down_for_rep_1(plan))
    assert [(r.key.rep, r.status) for r in first] == [(0, "ok"), (1, "error")] * 2
    run_dir = plan.run_dir

    plain = plan_resume(run_dir, lock=False)  # only looked at: it must not keep the lock
    assert len(plain.done) == 4 and plain.pending == [] and plain.retried == []

    # a paid retry that failed too, as an earlier --retry-errors would have appended it
    failed = next(r for r in first if r.status == "error")
    with SessionWriter(run_dir) as w:
        w.append(
            failed.model_copy(update={"cost_usd": 0.5, "error": SessionError(message="still down")})
        )

    retry = plan_resume(run_dir, retry_errors=True)
    assert sorted((j.key.mode, j.key.rep) for j in retry.pending) == [("full", 1), ("sharded", 1)]
    assert {r.key for r in retry.retried} == {j.key for j in retry.pending}
    assert [r.error.message for r in retry.retried if r.key == failed.key and r.error] == [
        "still down"
    ]
    assert retry.spent_usd == 0.5  # the superseded error's money was spent

    # the budget (0.1) is already spent by that retry: nothing starts, errors stay errors
    size = (run_dir / "sessions.jsonl").stat().st_size
    stopped = run(retry)
    assert [r.status for r in stopped] == ["ok", "error"] * 2
    assert (run_dir / "sessions.jsonl").stat().st_size == size

    # a bigger budget (not part of the config hash): the errors are graded now
    write_suite(tmp_path, budget_usd=10.0)
    after = run(plan_resume(run_dir, retry_errors=True))
    assert [r.status for r in after] == ["ok"] * 4
    assert [(r.key, r.seed) for r in after] == [(r.key, r.seed) for r in first]
    file = read_sessions(run_dir)
    assert sorted(r.key.id for r in file.records) == sorted(r.key.id for r in after)
    assert all(r.status == "ok" for r in file.records)
    assert (len(file.replaced), file.duplicates) == (3, 0)
    assert plan_resume(run_dir, retry_errors=True).pending == []  # graded keys never re-run
