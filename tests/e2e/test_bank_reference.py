"""Issue 10's bank figures: the shared reference agent's v1 defects show on the bank domain,
diagnosis finds their hidden causes, and v2 survives perturbations longer (log-rank).

The mode figures print with ``simlab run examples/bank/reference.yaml`` (the "Full vs
sharded" table); those of the personas who do not change their minds with the same suite
narrowed to them (``personas: [bank_calm_en, bank_terse_vi]``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import simlab
from simlab.cli import main
from simlab.report import summarize
from simlab.spec import load_goals, load_suite
from simlab.stats import wilson_interval

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "bank" / "reference.yaml"

pytestmark = pytest.mark.slow


def rate(records: list[simlab.SessionRecord]) -> float:
    return sum(r.passed for r in records) / len(records)


def sharded_minus_full(records: list[simlab.SessionRecord]) -> dict[str, float]:
    """The paired sharded - full means over cells (as the run's summary computes them)."""
    suite = load_suite(SUITE)
    row = summarize(records, suite.buckets, suite.seed)["full_vs_sharded"]["sharded_minus_full"]
    return {k: row[k] for k in ("mean_score", "aptitude", "n_pairs")}


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
    # sharded loses as on travel: the details a customer volunteers late (no tool requires
    # them, so the agent never asks) come after its anchored first proposal in some sessions,
    # so the mean drops while the best sessions still pass (aptitude holds). On the customers
    # who seldom change their minds the drop is clear; over every persona it is smaller, as
    # a mind-changer also gains from sharding (a correction can land before the first
    # proposal; told all at once it never can), and aptitude does not drop at all.
    delta = sharded_minus_full(steady)
    assert delta["n_pairs"] == 12
    assert delta["mean_score"] < -10, delta
    assert delta["aptitude"] > delta["mean_score"] + 8 and delta["aptitude"] > -3, delta
    overall = sharded_minus_full(records)
    assert overall["n_pairs"] == 24
    assert overall["mean_score"] < -4, overall
    assert overall["aptitude"] > overall["mean_score"] + 8, overall
    # and the difference (aptitude's change minus the mean's) has an interval above 0
    script = ROOT / "bench" / "validity" / "sharded_gap.py"
    gap = subprocess.run(
        [sys.executable, str(script), str(result.run_dir), "--suite", str(SUITE)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for group in ("all", "steady"):
        line = next(x for x in gap.splitlines() if x.split()[:2] == ["bank", group])
        found = re.search(r"aptitude - mean +([-+][\d.]+) \[ *([-+][\d.]+),", line)
        assert found is not None and float(found[2]) > 0, line
    # diagnosis, black box, agrees with the hidden truth on at least 90% of failures
    assert main(["diagnose", str(result.run_dir)]) == 0
    diagnosis = json.loads((result.run_dir / "diagnosis.json").read_text(encoding="utf-8"))
    accuracy = diagnosis["black_box"]["accuracy"]
    assert accuracy["n"] >= 40 and accuracy["share"] >= 0.9, accuracy
    # its replays rebuild the bank agent (they once replayed bank sessions on travel's, and
    # verified none): anchoring on a fact the user changed is verified. (On a detail said
    # late with no mind change, the settled one turn and the one turn as told are the same
    # conversation, so no replay can tell anchoring apart there, on travel as on bank.)
    changed = {
        (g.id, c.fact)
        for g in load_goals([ROOT / "goals" / "bank"]).values()
        for c in g.mind_changes
    }
    on_changed = [
        s
        for s in diagnosis["sessions"]
        if s["cause"] == "anchoring" and (s["goal"], s["first_failure"]["fact"]) in changed
    ]
    verified = sum(bool(s["verification"]["verified"]) for s in on_changed)
    assert len(on_changed) >= 40 and verified >= 0.9 * len(on_changed), (verified, len(on_changed))
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
    # v1 breaks sooner than v2 under stacked perturbations: more of its sessions break
    # than the log-rank test expects, fewer of v2's. Since the precondition check (a
    # balance read before verifying the caller) fails v1's fragile sessions at baseline,
    # fewer of them are left to break (216 against 384): p = 0.22 at this size
    observed, expected = comparison["observed"], comparison["expected"]
    assert observed[0] > expected[0] and observed[1] < expected[1], comparison
    observed, expected = comparison["observed"], comparison["expected"]
    assert observed[0] > expected[0] and observed[1] < expected[1]  # v1 fails more than its share
