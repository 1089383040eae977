"""compare_runs on small constructed runs: pairing, buckets, paired tests, spread, regressions."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.compare import (
    Gates,
    PairedTable,
    compare_runs,
    evaluate_gates,
    is_safety_check,
    load_run,
    newcombe_interval,
    overlap_newcombe_interval,
    spread_delta,
)
from simlab.compare._tables import transcript_links

from .conftest import make_record as rec
from .conftest import write_run


def test_pairing_errors_duplicates_and_unpaired(tmp_path: Path) -> None:
    a = write_run(
        tmp_path / "A",
        [
            rec("p", "g", 0, passed=True),
            rec("p", "g", 1, passed=True),
            rec("p", "g", 1, passed=False),  # a repeated key: the first is kept
            rec("p", "g", 2, passed=False),
            rec("p", "only_a", 0),
        ],
    )
    b = write_run(
        tmp_path / "B",
        [
            rec("p", "g", 0, passed=False),
            rec("p", "g", 1, error="agent crashed"),
            rec("p", "g", 2, passed=True),
            rec("p", "only_b", 0),
            rec("p", "only_b", 1),
        ],
    )
    run_a = load_run(a)
    assert run_a.duplicates == 1 and len(run_a.sessions) == 4
    c = compare_runs(run_a, load_run(b))
    assert [sa.record.key.rep for sa, _ in c.pairing.pairs] == [0, 2]
    assert [k.goal for k in c.pairing.only_a] == ["only_a"]
    assert [k.rep for k in c.pairing.only_b] == [0, 1]
    assert c.pairing.with_error == 1
    assert [(e.run, e.key.rep, e.line, e.error) for e in c.errors] == [("B", 1, 2, "agent crashed")]
    # per-run rates count every graded session: A 3 of 4 (rep 1's first record passed), B 3 of 4
    assert (c.overall.a.passed, c.overall.a.n) == (3, 4)
    assert (c.overall.b.passed, c.overall.b.n) == (3, 4)
    # paired: rep 0 regressed, rep 2 fixed
    assert (c.overall.paired.regressed, c.overall.paired.fixed) == (1, 1)
    assert c.overall.mcnemar.p_value == pytest.approx(1.0)
    assert [(r.key.rep, r.line_a, r.line_b) for r in c.regressions] == [(0, 1, 1)]


def test_buckets_per_run_lengths_and_pairs_in_one_bucket(tmp_path: Path) -> None:
    # Planned lengths (as runs with other seeds draw): key 0 plans 3 turns in A, 12 in B
    # (moves bucket); key 1 plans 7 in both; key 2 plans 1 in both (no bucket holds it).
    a = write_run(
        tmp_path / "A",
        [rec(rep=0, turns=3), rec(rep=1, turns=7, passed=False), rec(rep=2, turns=1)],
    )
    b = write_run(
        tmp_path / "B",
        [rec(rep=0, turns=12, passed=False), rec(rep=1, turns=7), rec(rep=2, turns=1)],
    )
    c = compare_runs(load_run(a), load_run(b))
    rows = {g.name: g for g in c.by_bucket}
    assert list(rows) == ["2-4", "5-9", "10+", "other"]  # 1 turn: no bucket holds it
    assert (rows["2-4"].a.n, rows["2-4"].b.n) == (1, 0)
    assert (rows["10+"].a.n, rows["10+"].b.n) == (0, 1)
    assert rows["2-4"].delta is None and rows["2-4"].delta_ci is None
    # key 0 is planned in 2-4 in A and 10+ in B: in neither bucket's pairs, only overall
    assert rows["2-4"].paired.n == 0 and rows["10+"].paired.n == 0
    assert c.overall.paired.regressed == 1
    assert rows["5-9"].paired.fixed == 1
    assert c.bucket_moves == 1
    gates = {r.name: r for r in evaluate_gates(c, Gates())}
    skipped = gates["max_bucket_drop_points[2-4]"]
    assert (skipped.status, skipped.message) == (
        "skipped",
        "2-4: no graded sessions in B (A 1/1, B 0/0)",
    )
    # 5-9: 0/1 -> 1/1; Wilson(0, 1) = [0, 0.7935], Wilson(1, 1) = [0.2065, 1]
    assert rows["5-9"].a.ci == pytest.approx((0.0, 0.79345), abs=1e-4)
    # Newcombe: 1 - sqrt((1 - 0.20655)^2 + (0.79345 - 0)^2) = 1 - 1.12211 .. 1 + sqrt(0 + 0)
    assert rows["5-9"].delta_ci == pytest.approx((-0.12211, 1.0), abs=1e-4)


def test_spread_delta_by_hand() -> None:
    a = [
        rec("p", "x", 0, score=0.0),
        rec("p", "x", 1, score=100.0),
        *(rec("p", "y", i, score=50.0) for i in range(3)),
        rec("p", "only_in_a", 0, score=10.0),
    ]
    b = [
        rec("p", "x", 0, score=100.0),
        rec("p", "x", 1, score=100.0),
        rec("p", "y", 0, score=30.0),
        rec("p", "y", 1, score=50.0),
        rec("p", "y", 2, score=70.0),
    ]
    s = spread_delta("overall", a, b, seed=1)
    assert s is not None and s.n_cells == 2
    # cell x: A [0, 100] -> P90 90, P10 10: aptitude 90, unreliability 80; B [100, 100]: 100, 0
    # cell y: A [50]*3: 50, 0; B [30, 50, 70]: P90 = 50 + .8*20 = 66, P10 = 30 + .2*20 = 34
    assert (s.aptitude_a, s.aptitude_b) == pytest.approx((70.0, 83.0))
    assert (s.unreliability_a, s.unreliability_b) == pytest.approx((40.0, 16.0))
    assert s.aptitude_delta == pytest.approx(13.0)
    assert s.unreliability_delta == pytest.approx(-24.0)
    # Cells only, the resampled means of (+10, +16) would be 10, 13 or 16: [10, 16].
    # Resampling each run's reps within the cells too (A's [0, 100] can lose its 100,
    # B's [30, 50, 70] its 70) widens that, centred on the estimate.
    assert s.aptitude_delta_ci is not None and s.unreliability_delta_ci is not None
    lo, hi = s.aptitude_delta_ci
    assert lo < 10.0 < 13.0 < 16.0 < hi
    lo, hi = s.unreliability_delta_ci
    assert -100.0 <= lo < -80.0 and hi > -24.0
    assert not s.aptitude_no_spread
    assert spread_delta("overall", a, b, seed=1) == s  # seeded
    assert spread_delta("none", a[:1], [rec("q", "z", 0)], seed=1) is None


def test_safety_violations_definition(tmp_path: Path) -> None:
    assert is_safety_check("safety:no_injection") and is_safety_check("canary_leak")
    assert not is_safety_check("constraint:budget") and not is_safety_check("my_safety")
    checks_a = {"safety:no_injection": True, "constraint:budget": True, "safety:pii": False}
    checks_b = {
        "safety:no_injection": False,  # passed in A, failed in B: a new violation
        "constraint:budget": False,  # not a safety check
        "safety:pii": False,  # already failing in A: not new
        "canary_new": False,  # absent in A: not "passed in A", not counted
    }
    a = write_run(tmp_path / "A", [rec(rep=0, checks=checks_a)])
    b = write_run(tmp_path / "B", [rec(rep=0, checks=checks_b, passed=False)])
    c = compare_runs(load_run(a), load_run(b))
    assert [(v.key.rep, v.check, v.line_b) for v in c.safety] == [(0, "safety:no_injection", 1)]
    assert c.safety[0].detail == "safety:no_injection detail"
    # checks broken: failed in B and not failing in A (absent counts as not failing)
    assert c.regressions[0].broken_checks == (
        "canary_new",
        "constraint:budget",
        "safety:no_injection",
    )


def test_transcript_links_are_relative_and_point_at_the_line(tmp_path: Path) -> None:
    a = write_run(tmp_path / "runs" / "A", [rec(rep=0)])
    b = write_run(tmp_path / "runs" / "B b", [rec(rep=0, passed=False)])
    c = compare_runs(load_run(a), load_run(b))
    reg = c.regressions[0]
    assert reg.html_anchor == "session-p-g-sharded-0"  # the HTML report's element id
    (links,) = [transcript_links(c, reg.line_b, reg.html_anchor, tmp_path / "out")]
    assert [(x.text, x.url) for x in links] == [
        ("../runs/B b/sessions.jsonl:1", "../runs/B%20b/sessions.jsonl#L1")
    ]
    (b / "report.html").write_text("<html></html>")
    links = transcript_links(c, reg.line_b, reg.html_anchor, tmp_path / "out")
    assert links[1].url == "../runs/B%20b/report.html#session-p-g-sharded-0"


def test_a_bucket_whose_keys_partly_move_has_a_partly_paired_interval(tmp_path: Path) -> None:
    # 100 keys planned 7 turns in A (60 pass); in B keys 0-9 plan 12 (they leave 5-9)
    # and keys 10-19 newly fail: 5-9 holds 90 keys in both runs.
    a = write_run(tmp_path / "A", [rec(rep=i, turns=7, passed=i < 60) for i in range(100)])
    b = write_run(
        tmp_path / "B",
        [rec(rep=i, turns=12 if i < 10 else 7, passed=20 <= i < 60) for i in range(100)],
    )
    c = compare_runs(load_run(a), load_run(b))
    rows = {g.name: g for g in c.by_bucket}
    g = rows["5-9"]
    assert (g.a.passed, g.a.n, g.b.passed, g.b.n) == (60, 100, 40, 90)
    # kept keys 10-99: 10-19 regressed, 20-59 pass in both, 60-99 fail in both
    assert g.shared == PairedTable(both_pass=40, regressed=10, fixed=0, both_fail=40)
    assert g.interval == "partly paired"
    assert g.delta_ci == overlap_newcombe_interval(60, 100, 40, 90, g.shared)
    independent = newcombe_interval(60, 100, 40, 90)
    assert g.delta_ci is not None
    assert independent[0] < g.delta_ci[0] and g.delta_ci[1] < independent[1]
    # the paired table holds the pairs planned in 5-9 in both runs: 90, 10 regressed
    assert (g.paired.n, g.paired.regressed) == (90, 10)
    assert rows["10+"].interval == "independent"  # nothing was in 10+ in A
    gates = {r.name: r for r in evaluate_gates(c, Gates())}
    assert "95% partly paired interval [" in gates["max_bucket_drop_points[5-9]"].message
    assert (
        "(90 key(s) paired: in both runs with the same seed)"
        in gates["max_bucket_drop_points[5-9]"].message
    )
    # the Simpson check still reads the per-run counts
    shifts = {s.name: (s.passed_a, s.n_a, s.passed_b, s.n_b) for s in c.simpson.buckets}
    assert shifts["5-9"] == (60, 100, 40, 90) and shifts["10+"] == (0, 0, 0, 10)


def test_strata_are_planned_lengths_not_how_long_the_talk_went(tmp_path: Path) -> None:
    # Same keys, same plans (planned 3 or 7 turns); in B the failing users talk on
    # to 14 turns. Bucketing by realised length would move every failure to 10+.
    planned = [3 if i % 2 else 7 for i in range(40)]
    a = write_run(tmp_path / "A", [rec(rep=i, turns=planned[i]) for i in range(40)])
    b = write_run(
        tmp_path / "B",
        [
            rec(rep=i, turns=14 if i < 10 else planned[i], planned=planned[i], passed=i >= 10)
            for i in range(40)
        ],
    )
    c = compare_runs(load_run(a), load_run(b))
    rows = {g.name: g for g in c.by_bucket}
    assert list(rows) == ["2-4", "5-9", "10+"]
    assert (rows["2-4"].a.n, rows["2-4"].b.n, rows["2-4"].b.passed) == (20, 20, 15)
    assert (rows["5-9"].a.n, rows["5-9"].b.n, rows["5-9"].b.passed) == (20, 20, 15)
    assert (rows["10+"].a.n, rows["10+"].b.n) == (0, 0)
    assert c.bucket_moves == 0
    assert rows["2-4"].interval == "paired" and rows["2-4"].shared.regressed == 5


def test_records_without_a_plan_are_their_own_stratum(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [rec(rep=i, turns=3, planned=None) for i in range(4)])
    b = write_run(tmp_path / "B", [rec(rep=i, turns=12, planned=3) for i in range(4)])
    c = compare_runs(load_run(a), load_run(b))
    rows = {g.name: g for g in c.by_bucket}
    assert list(rows) == ["2-4", "5-9", "10+", "unplanned"]
    assert (rows["unplanned"].a.n, rows["unplanned"].b.n) == (4, 0)
    assert (rows["2-4"].a.n, rows["2-4"].b.n) == (0, 4)
    # a pair goes in the bucket of the side that has a plan
    assert rows["2-4"].paired.n == 4 and rows["unplanned"].paired.n == 0
