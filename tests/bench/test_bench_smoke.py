"""The benchmarks still run (their figures are read in CI's log, not asserted here).

Each start a process and run a suite or more: with -m slow (CI's slow stage)."""

import subprocess
import sys
from pathlib import Path

import pytest
from run_simlab import simlab

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.slow
def test_engine_throughput_runs() -> None:
    proc = bench("bench/engine_throughput.py", "--reps", "1")
    assert proc.returncode == 0, proc.stderr
    assert "agent turns/s" in proc.stdout and "engine share of wall" in proc.stdout


@pytest.mark.slow
def test_llm_sessions_runs() -> None:
    proc = bench("bench/llm_sessions.py", "--latency-ms", "5", "--concurrency", "8", "--reps", "1")
    assert proc.returncode == 0, proc.stderr
    assert "ratio" in proc.stdout and "cache-read share" in proc.stdout


@pytest.mark.slow
def test_run_memory_runs() -> None:
    proc = bench("bench/run_memory.py", "--small", "144", "--large", "288")
    assert proc.returncode == 0, proc.stderr
    assert "ratio of peaks" in proc.stdout


@pytest.mark.slow
def test_ray_executor_bench_runs() -> None:
    pytest.importorskip("ray")
    proc = bench("bench/ray_executor.py", "--reps", "1")
    assert proc.returncode == 0, proc.stderr
    assert "ratio ray/local" in proc.stdout and "same records        True" in proc.stdout


def test_mind_change_timing_classes_every_session(tmp_path: Path) -> None:
    ran = simlab(
        "run", "examples/bank/reference.yaml", "--reps", "2", "--out", str(tmp_path), cwd=ROOT
    )
    assert ran.returncode == 0, ran.stderr
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    proc = bench(
        "bench/validity/mind_change_timing.py", str(run), "--suite", "examples/bank/reference.yaml"
    )
    assert proc.returncode == 0, proc.stderr
    blocks: dict[str, dict[str, int]] = {}
    for line in proc.stdout.splitlines():
        if not line.startswith(" "):
            head = line
            blocks[head] = {}
        else:
            label, n = line.split()[0], int(line.split("n=")[1].split()[0])
            blocks[head][label] = n
    # 6 goals x 2 personas x 2 reps per group and mode, every session in exactly one class
    assert set(blocks) == {
        f"bank {g} {m}" for g in ("mind-changers", "others") for m in ("full", "sharded")
    }
    for head, counts in blocks.items():
        assert counts["all"] == 24, (head, counts)
        assert sum(n for label, n in counts.items() if label != "all") == 24, (head, counts)
    # bank's mind-changers (change_mind 0.8) change their mind in most sessions of a goal
    # that has a mind change (3 of 6: the other 12 sessions have none to make); the others
    # (0.1 and 0.05) seldom do
    changers = blocks["bank mind-changers full"]["no_change"]
    assert 12 <= changers < 24, blocks
    assert blocks["bank others full"]["no_change"] > changers, blocks
