"""A run's tool-use figures, asked-for repeats of the final action included, are
recomputed from its sessions.jsonl: each record's figures from its transcript and goal,
the summary's means and wasteful share from the records' figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.graders import tool_use
from simlab.spec import load_goals
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    result = simlab.run(
        ROOT / "examples" / "bank" / "reference.yaml",
        target="reference:v2",
        out=out,
        progress=False,
        reps=2,
    )
    return result.run_dir


def test_each_records_figures_come_from_its_transcript(run_dir: Path) -> None:
    goals = load_goals([ROOT / "goals" / "bank"])
    text = (run_dir / "sessions.jsonl").read_text(encoding="utf-8")
    records = [SessionRecord.model_validate_json(line) for line in text.splitlines()]
    for r in records:
        assert r.tool_use == tool_use(goals[r.key.goal], r.transcript), r.key
    redone = [r for r in records if r.tool_use is not None and r.tool_use.repeats]
    # the fickle users change their minds after the reference agent acted: it acts again
    assert redone
    for r in redone:
        use = r.tool_use
        assert use is not None and use.precision == (use.lcs + use.repeats) / use.calls > (
            use.lcs / use.calls
        )


def test_the_summary_reads_the_records_figures(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())["trajectory"]["overall"]
    uses = [
        json.loads(line)["tool_use"]
        for line in (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    precision = [(u["lcs"] + u["repeats"]) / u["calls"] if u["calls"] else 1.0 for u in uses]
    recall = [u["lcs"] / u["expected"] if u["expected"] else 1.0 for u in uses]
    assert summary["n"] == len(uses)
    assert summary["precision"] == pytest.approx(np.mean(precision), abs=1e-6)
    assert summary["recall"] == pytest.approx(np.mean(recall), abs=1e-6)
    wasteful = sum(p < 0.8 <= r for p, r in zip(precision, recall, strict=True))
    assert summary["wasteful"]["count"] == wasteful
    assert summary["n_redone"] == sum(1 for u in uses if u["repeats"])
