"""A run's reports in bounded memory (issue 14, item 4): summaries from slim records,
a viewer of at most MAX_VIEWER_SESSIONS sessions read back from the file, and a
confirmation before a very large run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from run_simlab import simlab

import simlab.engine._run_size as run_size
import simlab.report._html as html_module
from simlab.engine import estimate_run, execute, plan_new_run
from simlab.report import summarize, write_run_reports
from simlab.spec import Suite, write_starter
from simlab.store import (
    TOOL_CALL_COUNTS_META,
    SessionRecord,
    read_sessions,
    record_line,
    slim_record,
)

ROOT = Path(__file__).resolve().parents[2]


def small_run(tmp_path: Path) -> tuple[Path, list[SessionRecord]]:
    suite = {
        "seed": 4,
        "personas": ["terse_en", "fickle_vi", "impatient_en"],
        "goals": ["one_way", "refund", "family_child"],
        "modes": ["full", "sharded"],
        "reps": 2,
        "target": "reference:v1",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    plan = plan_new_run(path, tmp_path / "out")
    records = anyio.run(lambda: execute(plan))
    return plan.run_dir, records


def test_a_summary_from_slim_records_is_the_summary_from_full_ones(tmp_path: Path) -> None:
    run_dir, full = small_run(tmp_path)
    assert any(not r.passed for r in full) and any(r.passed for r in full)
    suite = Suite.model_validate(json.loads((run_dir / "run.json").read_text())["suite"])
    expected = summarize(full, suite.buckets, suite.seed)
    slim = [slim_record(r) for r in full]
    assert all(not r.transcript.turns for r in slim)
    assert summarize(slim, suite.buckets, suite.seed) == expected
    read = read_sessions(run_dir, slim=True)
    assert summarize(read.records, suite.buckets, suite.seed) == expected


def test_slim_records_share_one_string_of_each_name(tmp_path: Path) -> None:
    # records read back from the file hold names of their own; slim, they share one each
    run_dir, full = small_run(tmp_path)
    read = read_sessions(run_dir, slim=True).records
    assert [r.key for r in read] == [r.key for r in full]
    by_persona: dict[str, set[int]] = {}
    for r in read:
        by_persona.setdefault(r.key.persona, set()).add(id(r.key.persona))
    assert all(len(ids) == 1 for ids in by_persona.values()), by_persona
    # a key expanded by the run has its names interned already: kept as it is
    assert all(slim_record(r).key is r.key for r in full)


def test_a_slim_record_made_again_from_its_own_json_is_the_same(tmp_path: Path) -> None:
    # a Ray worker sends the driver a slim record's JSON; the driver slims it again (to
    # share names and checks): the tool-call counts the first made from the transcript stay
    _, full = small_run(tmp_path)
    slim = [slim_record(r) for r in full]
    assert any(r.meta.get(TOOL_CALL_COUNTS_META) for r in slim)
    again = [slim_record(SessionRecord.model_validate_json(record_line(r))) for r in slim]
    assert again == slim
    assert [record_line(r) for r in again] == [record_line(r) for r in slim]


def test_the_viewer_holds_at_most_its_limit_failures_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, full = small_run(tmp_path)
    failed = sorted(r.key.id for r in full if not r.passed)
    assert 3 < len(failed) < len(full)
    monkeypatch.setattr(html_module, "MAX_VIEWER_SESSIONS", 3)
    write_run_reports(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count('<details class="session"') == 3
    for key in failed[:3]:  # the first failures by key, read back with their transcripts
        assert f'<span class="key">{key}</span>' in page
    assert f"The viewer holds 3 of the run's {len(full)} sessions" in page
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["overall"]["n_sessions"] == len(full)  # the figures count them all


def test_a_run_past_confirm_above_asks_first(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        json.dumps(
            {
                "personas": ["terse_en"],
                "goals": ["one_way", "refund"],
                "modes": ["full"],
                "reps": 6,
                "persona_dirs": [str(ROOT / "personas")],
                "goal_dirs": [str(ROOT / "goals")],
            }
        )
    )

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        # stdin is empty, not a terminal: nobody to ask
        return simlab("run", str(suite), "--quiet", *extra)

    refused = run("--out", str(tmp_path / "a"), "--confirm-above", "10")
    assert refused.returncode == 2, refused.stderr
    assert "this run is large: 12 sessions: about" in refused.stderr
    assert "to play them (from 6 of them played here" in refused.stderr
    assert "more for the reports" in refused.stderr and "of sessions.jsonl" in refused.stderr
    assert "pass --yes" in refused.stderr and "Traceback" not in refused.stderr
    assert not any((tmp_path / "a").iterdir())  # nothing half-made is left behind

    started = run("--out", str(tmp_path / "b"), "--confirm-above", "10", "--yes")
    assert started.returncode == 0, started.stderr
    (run_dir,) = (tmp_path / "b").iterdir()
    assert len((run_dir / "sessions.jsonl").read_text().splitlines()) == 12
    assert run("--out", str(tmp_path / "c"), "--confirm-above", "12").returncode == 0


def test_the_estimate_of_a_runs_disk_is_near_what_the_run_writes(tmp_path: Path) -> None:
    # 384 sessions of the default suite: travel and bank, every persona and length; the
    # estimate plays 128 of them (graded, as the run does) and scales their lines
    plan = plan_new_run(ROOT / "simlab.yaml", tmp_path, reps=2)
    estimate = anyio.run(estimate_run, plan)
    assert estimate.n_sessions == len(plan.jobs) == 384 and estimate.sampled == 128
    assert estimate.seconds is not None and estimate.seconds > 0
    anyio.run(execute, plan)
    written = (plan.run_dir / "sessions.jsonl").stat().st_size
    assert estimate.disk_bytes is not None
    assert 0.8 < estimate.disk_bytes / written < 1.25, (estimate.disk_bytes, written)


def test_the_estimate_stops_sampling_a_slow_agent_at_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a user's own Python agent that waits on something: the question must stay quick
    write_starter(tmp_path)
    (tmp_path / "slow.py").write_text(
        "import time\nfrom agent import reply as fast\n\n\n"
        "def reply(messages, ctx):\n    time.sleep(0.02)\n    return fast(messages, ctx)\n",
        encoding="utf-8",
    )
    suite = tmp_path / "simlab.yaml"
    suite.write_text(
        suite.read_text(encoding="utf-8").replace("target: agent:reply", "target: slow:reply"),
        encoding="utf-8",
    )
    monkeypatch.setattr(run_size, "WARM_UP_S", 0.1)
    monkeypatch.setattr(run_size, "SAMPLE_S", 0.3)
    plan = plan_new_run(suite, tmp_path / "results", reps=100)
    assert plan.suite.target.kind == "callable" and len(plan.jobs) > 256
    estimate = anyio.run(estimate_run, plan)
    assert 1 <= estimate.sampled < 40  # at 20 ms a turn, 128 would take several seconds
    assert estimate.seconds is not None and estimate.disk_bytes is not None
