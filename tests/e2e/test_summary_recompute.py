"""Every number in summary.json comes from sessions.jsonl alone.

Two ways: summarize() over the parsed lines reproduces summary.json exactly,
and the headline figures are recomputed here independently with numpy and the
Wilson formula, so a self-consistent but wrong summarize() would still fail.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from run_simlab import simlab

from simlab.report import failed_indices, failures_section, summarize
from simlab.spec import Bucket
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    proc = simlab("run", "--out", str(out), "--quiet", "--reps", "2", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    (found,) = list(out.iterdir())
    return found


def lines(run_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    text = (run_dir / "sessions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_summarize_over_the_lines_reproduces_summary_json(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    records = [SessionRecord.model_validate(d) for d in lines(run_dir)]
    buckets = [Bucket.model_validate(b) for b in summary["buckets"]]
    again = summarize(records, buckets, summary["seed"])
    summary.pop("run_id")
    # the reports add the failed sessions they list, read from the same lines
    listed = summary.pop("failed_sessions")
    n_failed = sum(1 for r in records if r.status == "ok" and not r.passed)
    assert listed == failures_section([records[i] for i in failed_indices(records)], n_failed)
    assert again == summary


def test_headline_figures_recomputed_independently(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    data = [d for d in lines(run_dir) if d["status"] == "ok"]

    by_persona: dict[str, list[bool]] = defaultdict(list)
    for d in data:
        by_persona[d["key"]["persona"]].append(d["passed"])
    for persona, outcomes in by_persona.items():
        row = summary["by_persona"][persona]
        assert row["n"] == len(outcomes)
        assert row["passes"] == sum(outcomes)
        assert row["pass_rate"] == pytest.approx(sum(outcomes) / len(outcomes), abs=1e-6)
        assert row["pass_ci"] == pytest.approx(wilson(sum(outcomes), len(outcomes)), abs=1e-6)

    cells: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for d in data:
        k = d["key"]
        cells[(k["persona"], k["goal"], k["mode"])].append(d["score"])
    for row in summary["cells"]:
        scores = np.array(cells[(row["persona"], row["goal"], row["mode"])])
        p90, p10 = np.percentile(scores, 90), np.percentile(scores, 10)
        assert row["aptitude"] == pytest.approx(p90, abs=1e-6)
        assert row["unreliability"] == pytest.approx(p90 - p10, abs=1e-6)

    # length rows bucket by the planned length each line records, never the realised one
    for name, lo, hi in (("2-4", 2, 4), ("5-9", 5, 9), ("10+", 10, 10**9)):
        planned = [d for d in data if lo <= d["planned_turns"] <= hi]
        assert summary["by_bucket"][name]["n"] == len(planned)
        assert summary["by_bucket"][name]["passes"] == sum(d["passed"] for d in planned)
        realised = [d for d in data if lo <= d["n_user_turns"] <= hi]
        assert summary["by_realised_length"][name]["n"] == len(realised)
        assert summary["by_realised_length"][name]["passes"] == sum(d["passed"] for d in realised)
    assert all(isinstance(d["planned_turns"], int) for d in data)
    assert summary["lengths"]["unplanned"] == 0

    full_cells = [np.percentile(v, 90) for (_, _, m), v in cells.items() if m == "full"]
    assert summary["full_vs_sharded"]["full"]["aptitude"] == pytest.approx(
        float(np.mean(full_cells)), abs=1e-6
    )


def test_by_check_recomputed_from_the_lines(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    tally: dict[str, list[tuple[bool, float]]] = {}
    for d in lines(run_dir):
        if d["status"] != "ok":
            continue
        for name, c in d["checks"].items():
            credit = c["score"] if c.get("score") is not None else float(c["passed"])
            tally.setdefault(name, []).append((c["passed"], credit))
    assert set(summary["by_check"]) == set(tally)
    for name, seen in tally.items():
        row = summary["by_check"][name]
        k, n = sum(1 for p, _ in seen if p), len(seen)
        assert (row["passes"], row["n"]) == (k, n)
        assert row["pass_ci"] == pytest.approx(list(wilson(k, n)), abs=1e-9)
        assert row["mean_credit"] == pytest.approx(sum(c for _, c in seen) / n, abs=1e-4)


def _two_level(cells: list[list[float]], stat, rng: np.random.Generator, b: int = 4000):  # type: ignore[no-untyped-def]
    """The documented interval, written out plainly: resample cells, then each drawn
    cell's reps; centre the resampled means on their mean; add to the estimate.

    ``stat`` reduces the last axis, so each cell's ``b`` resamplings are one array."""
    estimate = np.mean([stat(np.array(c)) for c in cells])
    drawn = rng.integers(0, len(cells), (b, len(cells)))  # the cells of each resample
    values = np.empty((b, len(cells)))
    for j, cell in enumerate(cells):
        reps = np.array(cell)
        where = drawn == j
        values[where] = stat(reps[rng.integers(0, len(reps), (int(where.sum()), len(reps)))])
    means = values.mean(axis=1)
    lo, hi = np.quantile(means - means.mean(), [0.025, 0.975])
    return estimate, estimate + lo, estimate + hi


def test_intervals_recomputed_independently(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    data = [d for d in lines(run_dir) if d["status"] == "ok"]
    assert summary["estimands"]["reps"] == 2
    assert "expected P90 of R=2" in summary["estimands"]["aptitude"]
    persona = sorted(p for p in summary["by_persona"] if not p.startswith("bank_"))[0]
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    tasks: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for d in data:
        k = d["key"]
        if k["persona"] == persona:
            cells[(k["goal"], k["mode"])].append(d["score"])
        tasks[(k["persona"], k["goal"], k["mode"])].append(float(d["passed"]))
    rng = np.random.default_rng(0)
    row = summary["by_persona"][persona]
    stats = {
        "aptitude": lambda x: np.percentile(x, 90, axis=-1),
        "unreliability": lambda x: np.percentile(x, 90, axis=-1) - np.percentile(x, 10, axis=-1),
    }
    for name, stat in stats.items():
        est, lo, hi = _two_level(list(cells.values()), stat, rng)
        assert row[name] == pytest.approx(est, abs=1e-6)
        got_lo, got_hi = row[f"{name}_ci"]
        slack = 0.15 * (hi - lo) + 0.5  # two Monte Carlo estimates of one interval
        assert got_lo == pytest.approx(max(lo, 0.0), abs=slack)
        assert got_hi == pytest.approx(min(hi, 100.0), abs=slack)
    # pass^1 over every task ("all goals"): the mean pass rate over cells
    est, lo, hi = _two_level(list(tasks.values()), lambda x: np.mean(x, axis=-1), rng, 1000)
    overall = summary["pass_hat_k"]["overall"]
    assert overall["k"]["1"] == pytest.approx(est, abs=1e-6)
    assert (overall["tasks"], overall["n"]) == (len(tasks), len(data))
    got_lo, got_hi = overall["k_ci"]["1"]
    slack = 0.2 * (hi - lo) + 0.005
    assert got_lo == pytest.approx(lo, abs=slack) and got_hi == pytest.approx(hi, abs=slack)
