"""`compare` on tool-call trajectories: the precision/recall table and the drop gate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simlab.compare import (
    Gates,
    cli_main,
    compare_runs,
    evaluate_gates,
    load_run,
    trajectory_deltas,
)
from simlab.store import ToolUse

from .conftest import make_record as rec
from .conftest import write_run

CLEAN = ToolUse(expected=2, calls=2, lcs=2)  # precision 1, recall 1
LOOPING = ToolUse(expected=2, calls=4, lcs=2)  # precision 0.5, recall 1


def _run(path: Path, uses: list[ToolUse], persona: str = "p") -> Path:
    records = []
    for i, use in enumerate(uses):
        r = rec(persona, "g", i, turns=3)
        records.append(r.model_copy(update={"tool_use": use}))
    return write_run(path, records)


def _gates(c: object, limit: float | None) -> dict[str, object]:
    results = evaluate_gates(c, Gates(max_trajectory_drop_points=limit))  # type: ignore[arg-type]
    return {r.name: r for r in results}


def test_paired_precision_drop_is_measured_and_gated(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", [CLEAN] * 40)
    b = _run(tmp_path / "b", [LOOPING] * 20 + [CLEAN] * 20)  # same keys and seeds: paired
    c = compare_runs(load_run(a), load_run(b), seed=1)
    overall = {d.metric: d for d in c.trajectory if d.group == "overall"}
    p = overall["precision"]
    # hand-computed: A 1.0; B (20 * 0.5 + 20 * 1) / 40 = 0.75; change -0.25
    assert (p.a, p.b, p.n_a, p.n_b, p.paired) == (1.0, 0.75, 40, 40, True)
    assert p.delta == pytest.approx(-0.25)
    lo, hi = p.delta_ci  # type: ignore[misc]
    assert lo < -0.25 < hi < 0
    assert p.label(p.b) == "wasteful" and p.label(p.a) == ""
    assert overall["recall"].delta == 0.0
    gates = _gates(c, 5.0)
    assert gates["max_trajectory_drop_points[precision]"].status == "failed"  # type: ignore[attr-defined]
    assert gates["max_trajectory_drop_points[recall]"].status == "passed"  # type: ignore[attr-defined]
    assert _gates(c, None)["max_trajectory_drop_points[precision]"].status == "skipped"  # type: ignore[attr-defined]
    same = compare_runs(load_run(a), load_run(a), seed=1)
    assert _gates(same, 5.0)["max_trajectory_drop_points[precision]"].status == "passed"  # type: ignore[attr-defined]


def test_unpaired_runs_use_independent_intervals(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", [CLEAN] * 10, persona="x")
    b = _run(tmp_path / "b", [CLEAN] * 9 + [LOOPING], persona="y")  # no key in common
    c = compare_runs(load_run(a), load_run(b), seed=1)
    p = next(d for d in c.trajectory if d.group == "overall" and d.metric == "precision")
    assert not p.paired and p.delta == pytest.approx(-0.05)
    gate = _gates(c, 1.0)["max_trajectory_drop_points[precision]"]
    assert gate.status == "inconclusive"  # type: ignore[attr-defined]
    persona_rows = {d.group for d in c.trajectory}
    assert {"overall", "persona x", "persona y", "goal g"} <= persona_rows


def test_the_cli_prints_the_table_and_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run(tmp_path / "a", [CLEAN] * 40)
    b = _run(tmp_path / "b", [LOOPING] * 40)
    gates = tmp_path / "gates.yaml"
    gates.write_text("max_trajectory_drop_points: 5\nmin_pairs: 1\n", encoding="utf-8")
    code = cli_main([str(a), str(b), "--gates", str(gates)])
    out = capsys.readouterr().out
    assert code == 1
    assert "Tool-call trajectory" in out and "max_trajectory_drop_points[precision]" in out
    assert "ok -> wasteful" in out


def test_runs_without_tool_use_figures_have_no_trajectory_rows(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", [rec("p", "g", i) for i in range(3)])
    c = compare_runs(load_run(a), load_run(a))
    assert c.trajectory == ()
    assert "max_trajectory_drop_points[precision]" not in _gates(c, 5.0)


def test_the_change_interval_covers_no_change_at_about_its_level() -> None:
    # same agent in both runs: each session's precision is 1 or 0.5 with chance 0.7/0.3;
    # the interval of the change should hold 0 about 95% of the time (independent draws)
    rng = np.random.default_rng(5)
    covered, trials = 0, 200
    for t in range(trials):
        runs = []
        for side in range(2):
            records = []
            for i in range(60):
                r = rec(f"p{side}", "g", i)  # other personas: no key paired
                loops = rng.random() < 0.3
                records.append(r.model_copy(update={"tool_use": LOOPING if loops else CLEAN}))
            runs.append(records)
        (d,) = [
            x
            for x in trajectory_deltas(runs[0], runs[1], [], seed=t, n_resamples=400)
            if x.group == "overall" and x.metric == "precision"
        ]
        assert d.delta_ci is not None and not d.paired
        covered += d.delta_ci[0] <= 0.0 <= d.delta_ci[1]
    print(f"no-change coverage {covered}/{trials}")
    assert covered / trials >= 0.90, covered  # nominal 0.95; 200 trials' noise ~1.5 points


def _versioned(path: Path, version: int) -> Path:
    records = []
    for i in range(3):
        r = rec("p", "g", i, turns=3)
        records.append(r.model_copy(update={"tool_use": LOOPING, "schema_version": version}))
    return write_run(path, records)


def test_runs_counting_repeats_by_different_rules_are_warned_about(tmp_path: Path) -> None:
    # schema 5 counted every repeat of the final action as waste; 6 counts an asked-for one right
    old, new = _versioned(tmp_path / "A", 5), _versioned(tmp_path / "B", 6)
    c = compare_runs(load_run(old), load_run(new))
    assert (c.old_rule_a, c.old_rule_b) == (3, 0)
    (warning,) = c.warnings
    assert warning.startswith("A's 3 session record(s) predate schema 6")
    assert compare_runs(load_run(new), load_run(new)).warnings == []
    assert compare_runs(load_run(old), load_run(old)).warnings == []
