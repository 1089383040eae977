"""The real CLI on the real default library: determinism, resume after SIGKILL, reports."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import run_simlab

ROOT = Path(__file__).resolve().parents[2]


def simlab(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_simlab.simlab(*args, cwd=cwd, env=env)


def only_run_dir(out: Path) -> Path:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def sessions(run_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def without_timing(record: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in record.items() if k not in ("duration_s", "agent_turn_s")}


def small_suite(tmp_path: Path, **overrides: object) -> Path:
    suite = {
        "name": "small",
        "seed": 5,
        "personas": ["terse_en", "fickle_vi", "impatient_en"],
        "goals": ["one_way", "refund", "family_child"],
        "modes": ["full", "sharded"],
        "reps": 2,
        "target": "reference:v1",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
        **overrides,
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def test_same_seed_same_sessions_other_seed_other_transcripts(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    runs = []
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        proc = simlab("run", str(suite), "--seed", seed, "--out", str(tmp_path / name), "--quiet")
        assert proc.returncode == 0, proc.stderr
        runs.append(sessions(only_run_dir(tmp_path / name)))
    a, b, c = runs
    assert len(a) == 3 * 3 * 2 * 2
    assert [without_timing(r) for r in a] == [without_timing(r) for r in b]
    by_key = {json.dumps(r["key"]): r["transcript"] for r in a}
    differing = sum(by_key[json.dumps(r["key"])] != r["transcript"] for r in c)
    assert differing > len(a) // 2


def test_report_rerenders_from_disk(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    assert simlab("run", str(suite), "--out", str(tmp_path), "--quiet").returncode == 0
    run_dir = only_run_dir(tmp_path)
    first = (run_dir / "summary.json").read_text()
    (run_dir / "summary.json").unlink()
    (run_dir / "report.md").unlink()
    proc = simlab("report", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((run_dir / "summary.json").read_text()) == json.loads(first)
    assert "terse_en" in (run_dir / "report.md").read_text()
    assert "terse_en" in proc.stdout


SLOW_TARGET = '''
import anyio
from simlab.agents.reference import reference_agent

class SlowReference:
    """The reference agent, 20 ms per turn: slow enough to be killed half-way."""
    def __init__(self):
        self.inner = reference_agent("v2", 0)
        self.capabilities = self.inner.capabilities
    async def reply(self, history, ctx):
        await anyio.sleep(0.02)
        return await self.inner.reply(history, ctx)
'''


def start_slow_run(
    tmp_path: Path, concurrency: int, until_lines: int
) -> tuple[subprocess.Popen[str], Path, dict[str, str]]:
    """A run against a slow target, started and left going until it has written
    ``until_lines`` sessions: (process, results folder, environment)."""
    (tmp_path / "slow_target.py").write_text(SLOW_TARGET)
    suite = small_suite(
        tmp_path, target="slow_target:SlowReference", reps=4, concurrency=concurrency
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    out = tmp_path / "out"
    return start_run(suite, out, until_lines, env), out, env


def start_run(
    suite: Path, out: Path, until_lines: int, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``simlab run SUITE --out OUT`` in the background, once it has written
    ``until_lines`` sessions (or after 60 s)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simlab.cli", "run", str(suite), "--out", str(out), "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = list(out.glob("*/sessions.jsonl"))
        if files and files[0].read_bytes().count(b"\n") >= until_lines:
            break
        time.sleep(0.01)
    return proc


@pytest.mark.slow
def test_sigkill_half_way_then_resume_gives_each_key_once(tmp_path: Path) -> None:
    expected = 3 * 3 * 2 * 4
    proc, out, env = start_slow_run(tmp_path, concurrency=4, until_lines=expected // 2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    run_dir = only_run_dir(out)
    assert 0 < len(sessions(run_dir)) < expected, "the kill must land half-way"

    resumed = simlab("run", "--resume", str(run_dir), "--quiet", env=env)
    assert resumed.returncode == 0, resumed.stderr
    keys = [json.dumps(r["key"], sort_keys=True) for r in sessions(run_dir)]
    assert len(keys) == expected
    assert len(set(keys)) == expected
    assert (run_dir / "summary.json").exists()


def test_resume_refuses_a_changed_suite(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    assert simlab("run", str(suite), "--out", str(tmp_path / "o"), "--quiet").returncode == 0
    run_dir = only_run_dir(tmp_path / "o")
    small_suite(tmp_path, reps=3)
    proc = simlab("run", "--resume", str(run_dir), "--quiet")
    assert proc.returncode == 2
    assert "changed since the run started" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_resume_reapplies_command_line_overrides(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    args = ("--seed", "9", "--reps", "1", "--quiet")
    assert simlab("run", str(suite), "--out", str(tmp_path / "o"), *args).returncode == 0
    run_dir = only_run_dir(tmp_path / "o")
    proc = simlab("run", "--resume", str(run_dir), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "18 of 18 sessions done" in proc.stderr
    assert len(sessions(run_dir)) == 18


def test_suite_experiments_feed_the_reports(tmp_path: Path) -> None:
    suite = small_suite(
        tmp_path,
        personas=["terse_en", "fickle_vi"],
        goals=["one_way"],
        experiments=["diagnosis", "brittleness"],
        perturbation_dirs=[str(ROOT / "perturbations")],
    )
    proc = simlab("run", str(suite), "--out", str(tmp_path / "o"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    run_dir = only_run_dir(tmp_path / "o")
    diagnosis = json.loads((run_dir / "diagnosis.json").read_text())
    brittleness = json.loads((run_dir / "brittleness.json").read_text())
    assert diagnosis["n_failed"] == sum(
        1 for r in sessions(run_dir) if r["status"] == "ok" and not r["passed"]
    )
    assert brittleness["curves"]
    html = (run_dir / "report.html").read_text()
    assert html.count("<svg") >= 4  # aptitude, buckets, survival, and diagnosis charts


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path) -> None:
    proc, out, _ = start_slow_run(tmp_path, concurrency=2, until_lines=5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "simlab run --resume" in stderr and "Traceback" not in stderr
    run_dir = only_run_dir(out)
    lines = (run_dir / "sessions.jsonl").read_bytes()
    assert lines.endswith(b"\n")  # nothing half-written


def test_ctrl_c_stops_an_offline_run_whose_sessions_never_wait(tmp_path: Path) -> None:
    # The scripted user and the reference agent never await: without a checkpoint per
    # session the event loop never ran the signal watcher and the run went to its end.
    suite = small_suite(tmp_path, reps=200)  # 3,600 sessions: far more than the signal needs
    out = tmp_path / "out"
    proc = start_run(suite, out, until_lines=20)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "simlab run --resume" in stderr
    assert len(sessions(only_run_dir(out))) < 3 * 3 * 2 * 200


def test_bad_run_options_are_refused_without_a_traceback(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    zero = simlab("run", str(suite), "--reps", "0", "--out", str(tmp_path / "z"), "--quiet")
    assert zero.returncode == 2 and "must be at least 1" in zero.stderr
    assert simlab("run", str(suite), "--out", str(tmp_path / "o"), "--quiet").returncode == 0
    run_dir = only_run_dir(tmp_path / "o")
    clash = simlab("run", "--resume", str(run_dir), "--reps", "3", "--quiet")
    assert clash.returncode == 2 and "cannot change a run being resumed" in clash.stderr


def test_a_run_that_cannot_start_leaves_no_folder(tmp_path: Path) -> None:
    suite = small_suite(tmp_path, target="no_such_module_anywhere:reply")
    out = tmp_path / "out"
    proc = simlab("run", str(suite), "--out", str(out), "--quiet")
    assert proc.returncode == 2
    assert "cannot import module 'no_such_module_anywhere'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists() or not any(out.iterdir())


def test_resume_refuses_an_edited_agent_file(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text((ROOT / "domains/travel/agents/booking_llm.yaml").read_text())
    suite = small_suite(
        tmp_path,
        target={"kind": "llm", "agent": str(agent)},
        llm={"backend": "replay", "record_dir": str(tmp_path / "rec")},
    )
    from simlab.engine import plan_new_run, plan_resume
    from simlab.store import RunDirError

    plan = plan_new_run(suite, tmp_path / "o")
    agent.write_text(agent.read_text().replace("booking", "Booking", 1))
    with pytest.raises(RunDirError, match="changed since the run started"):
        plan_resume(plan.run_dir)


FLAKY_TARGET = '''
import os
from simlab.agents.reference import reference_agent

class FlakyReference:
    """The reference agent, unreachable for rep-1 sessions while FLAKY_OUTAGE is set."""
    def __init__(self):
        self.inner = reference_agent("v2", 0)
        self.capabilities = self.inner.capabilities
    async def reply(self, history, ctx):
        if os.environ.get("FLAKY_OUTAGE") and ctx.session_id.split("/")[3] == "1":
            raise ConnectionError("provider outage")
        return await self.inner.reply(history, ctx)
'''


def flaky_suite(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A 16-session suite whose target fails its 8 rep-1 sessions during an outage."""
    (tmp_path / "flaky_target.py").write_text(FLAKY_TARGET)
    suite = small_suite(
        tmp_path,
        personas=["terse_en", "fickle_vi"],
        goals=["one_way", "refund"],
        target="flaky_target:FlakyReference",
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    env.pop("FLAKY_OUTAGE", None)
    return suite, env


def key_of(record: dict) -> str:  # type: ignore[type-arg]
    return json.dumps(record["key"], sort_keys=True)


def test_retry_errors_reruns_only_error_sessions_and_appends(tmp_path: Path) -> None:
    suite, healthy = flaky_suite(tmp_path)
    outage = {**healthy, "FLAKY_OUTAGE": "1"}
    proc = simlab("run", str(suite), "--out", str(tmp_path / "o"), "--quiet", env=outage)
    assert proc.returncode == 0, proc.stderr
    run_dir = only_run_dir(tmp_path / "o")
    first = sessions(run_dir)
    errored = {key_of(r) for r in first if r["status"] == "error"}
    assert len(first) == 16 and len(errored) == 8
    assert {r["stop_reason"] for r in first if r["status"] == "error"} == {"agent_error"}
    assert json.loads((run_dir / "summary.json").read_text())["errors"]["n"] == 8

    # a plain resume leaves errors alone
    plain = simlab("run", "--resume", str(run_dir), "--quiet", env=healthy)
    assert plain.returncode == 0, plain.stderr
    assert "16 of 16 sessions done" in plain.stderr
    before = (run_dir / "sessions.jsonl").read_bytes()
    assert len(sessions(run_dir)) == 16

    # retried while the outage lasts: each error gets a second error record
    still_down = simlab("run", "--resume", str(run_dir), "--retry-errors", "--quiet", env=outage)
    assert still_down.returncode == 0, still_down.stderr
    assert "8 of 16 sessions done; retrying 8 error sessions" in still_down.stderr
    assert "retried 8 of 8 error sessions: 0 graded, 8 errors again" in still_down.stderr
    during = (run_dir / "sessions.jsonl").read_bytes()
    assert during.startswith(before) and len(sessions(run_dir)) == 24

    # retried once the target is healthy: every error key is graded now
    proc = simlab("run", "--resume", str(run_dir), "--retry-errors", "--quiet", env=healthy)
    assert proc.returncode == 0, proc.stderr
    assert "retried 8 of 8 error sessions: 8 graded, 0 errors again" in proc.stderr
    after = (run_dir / "sessions.jsonl").read_bytes()
    assert after.startswith(during)  # append-only: earlier lines byte-identical
    lines = sessions(run_dir)
    assert len(lines) == 32
    retried = lines[24:]
    assert {key_of(r) for r in retried} == errored
    assert all(r["status"] == "ok" for r in retried)
    seeds = {key_of(r): r["seed"] for r in first}
    assert all(r["seed"] == seeds[key_of(r)] for r in retried)  # the same seed, the same session

    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["errors"]["n"] == 0 and summary["errors"]["by_stop_reason"] == {}
    assert summary["overall"]["n"] == 16  # each key graded exactly once
    (run_dir / "summary.json").unlink()  # re-rendered from sessions.jsonl alone, the same
    assert simlab("report", str(run_dir)).returncode == 0
    assert json.loads((run_dir / "summary.json").read_text()) == summary

    # the retried sessions are the ones an outage-free run plays with the same seed
    fresh = simlab("run", str(suite), "--out", str(tmp_path / "fresh"), "--quiet", env=healthy)
    assert fresh.returncode == 0, fresh.stderr
    healthy_runs = {key_of(r): r["transcript"] for r in sessions(only_run_dir(tmp_path / "fresh"))}
    assert all(r["transcript"] == healthy_runs[key_of(r)] for r in retried)

    # nothing left to retry: a graded key is never re-run
    again = simlab("run", "--resume", str(run_dir), "--retry-errors", "--quiet", env=outage)
    assert again.returncode == 0, again.stderr
    assert "16 of 16 sessions done; retrying 0 error sessions" in again.stderr
    assert (run_dir / "sessions.jsonl").read_bytes() == after


def test_retry_errors_needs_resume(tmp_path: Path) -> None:
    suite = small_suite(tmp_path)
    out = tmp_path / "out"
    proc = simlab("run", str(suite), "--retry-errors", "--out", str(out), "--quiet")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: --retry-errors needs --resume RUN_DIR: it re-runs an earlier run's errors"
    )
    assert not out.exists()
