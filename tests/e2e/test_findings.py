"""What the default suite must show against the reference agent's two versions.

v1 has its defects on (context window, anchoring, drift, one question per
turn, misreads); v2 has them fixed. The report must show what v1's defects
cause, and the gaps must shrink against v2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FICKLE = ("fickle_en", "fickle_vi")
IMPATIENT = ("impatient_en", "impatient_vi")


def run_default(tmp: Path, version: str) -> dict[str, Any]:
    text = (ROOT / "simlab.yaml").read_text(encoding="utf-8")
    text = text.replace("reference:v1", f"reference:{version}")
    text += f"\npersona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n"
    suite = tmp / f"{version}.yaml"
    suite.write_text(text, encoding="utf-8")
    out = tmp / version
    proc = subprocess.run(
        [sys.executable, "-m", "simlab.cli", "run", str(suite), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list(out.iterdir())
    summary: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return summary


@pytest.fixture(scope="module")
def summaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("findings")
    return {v: run_default(tmp, v) for v in ("v1", "v2")}


def rate(row: dict[str, Any]) -> float:
    return float(row["pass_rate"])


def test_default_suite_is_big_enough(summaries: dict[str, dict[str, Any]]) -> None:
    assert summaries["v1"]["overall"]["n_sessions"] >= 400


def test_v1_the_mind_changing_persona_loses_most(summaries: dict[str, dict[str, Any]]) -> None:
    personas = summaries["v1"]["by_persona"]
    others = [rate(r) for p, r in personas.items() if p not in FICKLE]
    assert max(rate(personas[p]) for p in FICKLE) < min(others)


def test_v1_the_longest_bucket_loses_most(summaries: dict[str, dict[str, Any]]) -> None:
    buckets = summaries["v1"]["by_bucket"]
    assert rate(buckets["10+"]) < rate(buckets["5-9"]) < rate(buckets["2-4"])


def test_v1_impatient_personas_give_up_before_anything_happens(
    summaries: dict[str, dict[str, Any]],
) -> None:
    personas = summaries["v1"]["by_persona"]
    others = [r["walked_out_rate"] for p, r in personas.items() if p not in IMPATIENT]
    for p in IMPATIENT:
        assert personas[p]["walked_out_rate"] > 2 * max(others)


def test_v1_sharded_loses_mostly_to_unreliability(summaries: dict[str, dict[str, Any]]) -> None:
    full = summaries["v1"]["full_vs_sharded"]["full"]
    sharded = summaries["v1"]["full_vs_sharded"]["sharded"]
    mean_drop = full["mean_score"] - sharded["mean_score"]
    aptitude_drop = full["aptitude"] - sharded["aptitude"]
    assert mean_drop > 10
    assert 0 <= aptitude_drop < 0.7 * mean_drop
    # relative to where each started, aptitude barely moves while unreliability jumps
    assert aptitude_drop / full["aptitude"] < 0.15
    assert sharded["unreliability"] > 1.4 * full["unreliability"]


def test_v2_shrinks_every_gap(summaries: dict[str, dict[str, Any]]) -> None:
    v1, v2 = summaries["v1"], summaries["v2"]

    def gap(s: dict[str, Any]) -> dict[str, float]:
        personas, buckets = s["by_persona"], s["by_bucket"]
        fvs = s["full_vs_sharded"]
        others = [rate(r) for p, r in personas.items() if p not in FICKLE]
        non_empty = [rate(b) for b in buckets.values() if b["n"] > 0]
        return {
            "fickle": sum(others) / len(others) - min(rate(personas[p]) for p in FICKLE),
            "length": max(non_empty) - min(non_empty),
            "modes": fvs["full"]["mean_score"] - fvs["sharded"]["mean_score"],
            "walked_out": max(personas[p]["walked_out_rate"] for p in IMPATIENT),
        }

    g1, g2 = gap(v1), gap(v2)
    for name in g1:
        assert g2[name] < g1[name] / 2, (name, g1[name], g2[name])
