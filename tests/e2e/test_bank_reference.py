"""Issue 10's bank figures: the shared reference agent's v1 defects show on the bank domain,
diagnosis finds their hidden causes, and v2 survives perturbations longer (log-rank)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import simlab
from simlab.cli import main
from simlab.stats import wilson_interval

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "bank" / "reference.yaml"

pytestmark = pytest.mark.slow


def rate(records: list[simlab.SessionRecord]) -> float:
    return sum(r.passed for r in records) / len(records)


def test_v1_defects_show_and_are_diagnosed_and_v2_survives_longer(tmp_path: Path) -> None:
    result = simlab.run(SUITE, out=tmp_path / "runs", progress=False)
    records = [r for r in result.records if r.status == "ok"]
    assert len(records) == len(result.records) == 384
    # the mind-changing personas lose most, with intervals apart
    fickle = [r for r in records if r.key.persona.startswith("bank_fickle")]
    steady = [r for r in records if not r.key.persona.startswith("bank_fickle")]
    hi = wilson_interval(sum(r.passed for r in fickle), len(fickle))[1]
    lo = wilson_interval(sum(r.passed for r in steady), len(steady))[0]
    assert hi < lo, (rate(fickle), rate(steady))
    # diagnosis, black box, agrees with the hidden truth on at least 90% of failures
    assert main(["diagnose", str(result.run_dir)]) == 0
    diagnosis = json.loads((result.run_dir / "diagnosis.json").read_text(encoding="utf-8"))
    accuracy = diagnosis["black_box"]["accuracy"]
    assert accuracy["n"] >= 40 and accuracy["share"] >= 0.9, accuracy
    # its replays rebuild the bank agent (they once replayed bank sessions on travel's)
    assert diagnosis["verified"]["share"] >= 0.8, diagnosis["verified"]
    # v2's survival curve lies above v1's
    code = main(
        [
            "brittleness",
            str(result.run_dir),
            "--compare",
            "reference:v2",
            "--perturbations",
            str(ROOT / "perturbations"),
        ]
    )
    assert code == 0
    brittleness = (result.run_dir / "brittleness.json").read_text(encoding="utf-8")
    comparison = json.loads(brittleness)["comparison"]
    assert comparison["p_value"] < 0.05
    observed, expected = comparison["observed"], comparison["expected"]
    assert observed[0] > expected[0] and observed[1] < expected[1]  # v1 fails more than its share
