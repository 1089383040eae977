"""Diagnosis of real runs: counterfactual flips, the report, the CLI, the default suite."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from simlab.agents.reference import AgentConfig, ReferenceAgent
from simlab.contracts import SessionSetup, UserSimulator
from simlab.core import Knobs, SessionKey
from simlab.diagnose import (
    COUNTERFACTUAL,
    DIAGNOSIS_FILE,
    Cause,
    DiagnosisReport,
    ReplayPlan,
    cli_main,
    diagnose_run,
    first_failure,
    replay_plan,
    verdict,
)
from simlab.engine import SessionJob, SessionLimits, execute, plan_new_run, run_session
from simlab.report import write_run_reports
from simlab.simulators import ScriptedSimulator
from simlab.spec import Mode, load_goals, load_personas
from simlab.store import SessionRecord

REPO = Path(__file__).resolve().parents[2]
PERSONAS = load_personas([REPO / "personas"])
GOALS = load_goals([REPO / "goals"])
LIMITS = SessionLimits(max_turns=20, turn_timeout_s=5)


def _sim(setup: SessionSetup) -> UserSimulator:
    return ScriptedSimulator(setup.persona, setup.goal, setup.mode, setup.user_seed)


def _job(persona: str, goal: str, seed: int) -> SessionJob:
    key = SessionKey(persona=persona, goal=goal, mode="sharded", rep=seed)
    return SessionJob(key, seed, PERSONAS[persona], GOALS[goal], Mode.SHARDED)


async def _flips(
    config: AgentConfig, persona: str, goal: str, cause: Cause, knobs: Knobs | None = None
) -> tuple[int, int, list[SessionRecord]]:
    """Sessions failed by an agent with one defect, and how many the replay flips."""

    def target(setup: SessionSetup) -> ReferenceAgent:
        return ReferenceAgent(config, setup.agent_seed)

    failed = flipped = 0
    replays = []
    for seed in range(8):
        job = _job(persona, goal, seed)
        record = await run_session(job, target, _sim, LIMITS)
        if record.passed:
            continue
        failed += 1
        failure = first_failure(GOALS[goal], record)
        assert failure is not None
        plan = replay_plan(job, COUNTERFACTUAL[cause])
        if knobs is not None:  # the same session, with other knobs
            plan = ReplayPlan(job, knobs)
        replay = await run_session(plan.job, target, _sim, LIMITS, plan.knobs)
        replays.append(replay)
        ok, _ = verdict(cause, failure.check, replay)
        flipped += ok
    return failed, flipped, replays


def test_unlimited_window_cures_a_truncating_agent() -> None:
    failed, flipped, _ = anyio.run(
        _flips, AgentConfig(context_window=2), "chatty_en", "round_trip_hotel", Cause.TRUNCATION
    )
    assert failed >= 3 and flipped == failed


def test_instruction_reminder_cures_a_drifting_agent() -> None:
    failed, flipped, replays = anyio.run(
        _flips, AgentConfig(drift_after_turns=2), "chatty_en", "one_way", Cause.DRIFT
    )
    assert failed >= 3 and flipped == failed
    assert all(r.passed for r in replays)


def test_one_turn_cures_anchoring_where_a_recap_cannot() -> None:
    anchored = AgentConfig(anchoring=True)
    failed, flipped, _ = anyio.run(_flips, anchored, "fickle_en", "one_way", Cause.ANCHORING)
    assert failed >= 3 and flipped == failed
    # The anchored agent already sees the new constraint: restating it changes nothing.
    recap = Knobs(constraint_recap=True)
    _, cured, _ = anyio.run(_flips, anchored, "fickle_en", "one_way", Cause.ANCHORING, recap)
    assert cured == 0


def _run(tmp_path: Path, target: str, personas: list[str], goals: list[str], reps: int) -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"seed: 11\npersonas: {json.dumps(personas)}\ngoals: {json.dumps(goals)}\n"
        f"modes: [full, sharded]\nreps: {reps}\ntarget: {target}\n"
        f"persona_dirs: [{REPO / 'personas'}]\ngoal_dirs: [{REPO / 'goals'}]\n",
        encoding="utf-8",
    )
    plan = plan_new_run(suite, tmp_path / "results")
    anyio.run(execute, plan)
    return plan.run_dir


def _check_consistent(report: DiagnosisReport) -> None:
    assert sum(row.n for row in report.causes) == report.n_failed == len(report.sessions)
    verified = sum(1 for s in report.sessions if s.verification and s.verification.verified)
    assert report.verified.k == verified and report.verified.n == report.n_failed
    located = [s for s in report.sessions if s.transition is not None]
    assert report.heatmap.n == sum(map(sum, report.heatmap.counts)) == len(located)


def test_small_v1_run_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _run(
        tmp_path, "reference:v1", ["fickle_en", "terse_vi"], ["one_way", "change_date"], 3
    )
    assert cli_main([str(run_dir), "--concurrency", "4"]) == 0
    out = capsys.readouterr().out
    assert "Diagnosed causes" in out and "accuracy" in out and "First-failure" in out
    assert "Cohen's kappa" in out and "balanced accuracy" in out
    assert "as a black box" in out and "Specificity of verification" in out
    data = json.loads((run_dir / DIAGNOSIS_FILE).read_text(encoding="utf-8"))
    report = DiagnosisReport.model_validate(data)
    _check_consistent(report)
    assert report.n_failed > 0
    assert report.confusion is not None
    agree = sum(1 for s in report.sessions if s.agrees)
    assert report.confusion.accuracy.k == agree
    assert sum(map(sum, report.confusion.matrix)) == report.n_failed
    # Only failures are diagnosed, each once.
    keys = [s.key for s in report.sessions]
    assert len(keys) == len(set(keys))
    by_cause = {row.cause: row.n for row in report.causes}
    assert by_cause[Cause.ANCHORING] > 0  # the fickle persona changes its mind
    assert report.black_box is not None and report.black_box.kappa is not None
    assert report.black_box.kappa.n == report.n_failed
    # The HTML report carries the agreement figures with their n beside the matrix.
    assert cli_main([str(run_dir), "--concurrency", "4"]) == 0
    write_run_reports(run_dir)
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Cohen&#x27;s kappa" in html or "Cohen's kappa" in html
    assert "balanced accuracy" in html and f"(n={report.n_failed})" in html


def test_a_drifting_callable_target_is_diagnosed_as_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "drifty_agent.py").write_text(
        "from simlab.agents.reference import AgentConfig, ReferenceAgent\n"
        "class Drifty(ReferenceAgent):\n"
        "    def __init__(self) -> None:\n"
        "        super().__init__(AgentConfig(drift_after_turns=2), 0)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    run_dir = _run(tmp_path, "drifty_agent:Drifty", ["chatty_en", "terse_en"], ["one_way"], 4)
    report = diagnose_run(run_dir, concurrency=8, late_turn=3)
    _check_consistent(report)
    drift = [s for s in report.sessions if s.cause is Cause.DRIFT]
    assert drift, [s.evidence for s in report.sessions]
    assert all(s.first_failure and s.first_failure.check == "confirmation" for s in drift)
    assert all(s.first_failure and s.first_failure.turn >= 3 for s in drift)
    assert all(s.verification and s.verification.verified for s in drift)
    assert all(s.true_cause and s.true_cause.recorded == "drift" for s in drift)


def test_bad_run_dirs_exit_2_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main([str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert cli_main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "run.json not found" in err and "Traceback" not in err
    (tmp_path / "run.json").write_text("{broken", encoding="utf-8")
    assert cli_main([str(tmp_path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert cli_main([]) == 2


def _default_suite(tmp_path: Path, version: str) -> DiagnosisReport:
    text = (REPO / "simlab.yaml").read_text(encoding="utf-8").replace("reference:v1", version)
    suite = tmp_path / f"{version.replace(':', '_')}.yaml"
    dirs = f"\npersona_dirs: [{REPO / 'personas'}]\ngoal_dirs: [{REPO / 'goals'}]\n"
    suite.write_text(text + dirs, encoding="utf-8")
    plan = plan_new_run(suite, tmp_path / version.replace(":", "_"))
    anyio.run(execute, plan)
    return diagnose_run(plan.run_dir)


def test_default_suite_figures(tmp_path: Path) -> None:
    v1 = _default_suite(tmp_path, "reference:v1")
    _check_consistent(v1)
    assert v1.n_failed >= 100
    assert v1.confusion is not None
    assert v1.confusion.accuracy.share is not None and v1.confusion.accuracy.share >= 0.90
    # Raw accuracy is read against always naming the commonest cause; kappa and
    # balanced accuracy are not flattered by it.
    assert v1.confusion.majority is not None and v1.confusion.majority.share is not None
    assert v1.confusion.majority.share >= 0.8
    assert v1.confusion.kappa is not None and (v1.confusion.kappa.value or 0) >= 0.8
    balanced = v1.confusion.balanced_accuracy
    assert balanced is not None and (balanced.value or 0) >= 0.8
    # The black-box diagnosis (no view, no meta) still agrees far beyond chance.
    bb = v1.black_box
    assert bb is not None and bb.accuracy.n == v1.n_failed
    assert bb.kappa is not None and bb.kappa.value is not None and bb.kappa.ci is not None
    assert bb.kappa.value >= 0.75 and bb.kappa.ci[0] > 0.5
    assert bb.balanced_accuracy is not None and (bb.balanced_accuracy.value or 0) >= 0.75
    # Drift is a first failure of the default suite, so its rule is exercised there.
    n1 = {row.cause: row.n for row in v1.causes}
    drift = [s for s in v1.sessions if s.cause is Cause.DRIFT]
    assert len(drift) >= 5 and n1[Cause.DRIFT] == len(drift)
    assert all(s.true_cause and s.true_cause.cause is Cause.DRIFT for s in drift)
    # Verification is specific: every replay runs on every failure, and a cause's rule
    # verifies at most 5% of the failures whose true cause is another one.
    assert all(s.verification is None or len(s.verification.fixed) == 5 for s in v1.sessions)
    rows = {row.cause: row for row in v1.false_verification}
    for row in rows.values():
        assert row.false.n > 0 and row.false.share is not None and row.false.share <= 0.05
    total = v1.false_verification_all
    assert total is not None and total.ci[1] <= 0.05
    assert (rows[Cause.DRIFT].true.share or 0) >= 0.9
    assert (rows[Cause.TRUNCATION].true.share or 0) >= 0.5
    assert (rows[Cause.ANCHORING].true.share or 0) >= 0.3
    # The one-turn replay alone (the old verification of anchoring) is not specific.
    other = [
        s
        for s in v1.sessions
        if s.true_cause is not None
        and s.true_cause.cause is not Cause.ANCHORING
        and s.verification is not None
    ]
    fixed_by_one_turn = sum(1 for s in other if s.verification and s.verification.fixed["one_turn"])
    assert fixed_by_one_turn / len(other) > 0.2
    v2 = _default_suite(tmp_path, "reference:v2")
    n2 = {row.cause: row.n for row in v2.causes}
    assert n2[Cause.ANCHORING] < n1[Cause.ANCHORING] / 4
    assert n2[Cause.TRUNCATION] < max(1, n1[Cause.TRUNCATION])
    assert n2[Cause.DRIFT] == 0


def test_piped_output_is_not_cut_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A long target name makes the first line longer than 80 columns.
    module = "an_agent_module_with_a_name_long_enough_to_pass_eighty_columns"
    (tmp_path / f"{module}.py").write_text(
        "from simlab.agents.reference import AgentConfig, ReferenceAgent\n"
        "class Anchored(ReferenceAgent):\n"
        "    def __init__(self) -> None:\n"
        "        super().__init__(AgentConfig(anchoring=True), 0)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("COLUMNS", raising=False)
    run_dir = _run(tmp_path, f"{module}:Anchored", ["fickle_en"], ["one_way"], 2)
    assert cli_main([str(run_dir), "--no-write"]) == 0
    first = capsys.readouterr().out.splitlines()[0]  # captured: not a terminal
    assert first.startswith(f"run {run_dir.name} ({module}:Anchored): ")
    assert first.endswith(" failed and are diagnosed") and len(first) > 80
