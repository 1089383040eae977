import json
import random

import pytest

from simlab.report import SUMMARY_SCHEMA_VERSION, render_markdown, summarize
from simlab.spec import Suite
from simlab.store import RunSummary, SessionRecord, StopReason, Usage

from .conftest import BUCKETS, record

# Cells by hand (linear interpolation, rank = (n-1) q / 100):
#   alice/full    [0, 50, 100]   P90 = 90, P10 = 10  -> unreliability 80, mean 50
#   alice/sharded [80, 100, 100] P90 = 100, P10 = 84 -> unreliability 16, mean 93.33
#   bob/full      [0, 100]       P90 = 90, P10 = 10  -> unreliability 80, mean 50 (rep 2 errored)
#   bob/sharded   [30, 60, 90]   P90 = 84, P10 = 36  -> unreliability 48, mean 60


def test_overall_counts_exclude_the_error(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    o = s["overall"]
    assert (o["n"], o["passes"], o["n_errors"], o["n_sessions"]) == (11, 4, 1, 12)
    assert o["pass_rate"] == pytest.approx(4 / 11, abs=1e-4)
    assert o["n_cells"] == 4
    assert o["aptitude"] == pytest.approx((90 + 100 + 90 + 84) / 4)
    assert o["unreliability"] == pytest.approx((80 + 16 + 80 + 48) / 4)
    assert s["schema_version"] == SUMMARY_SCHEMA_VERSION
    assert s["seed"] == 7


def test_by_persona(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    alice, bob = s["by_persona"]["alice"], s["by_persona"]["bob"]
    assert (alice["n"], alice["passes"], alice["pass_rate"]) == (6, 3, 0.5)
    assert (bob["n"], bob["passes"], bob["pass_rate"], bob["n_errors"]) == (5, 1, 0.2, 1)
    assert alice["aptitude"] == pytest.approx(95.0)
    assert alice["unreliability"] == pytest.approx(48.0)
    assert bob["aptitude"] == pytest.approx(87.0)
    assert bob["unreliability"] == pytest.approx(64.0)
    # two cells, resampled and each with its reps resampled: the interval is centred
    # on the estimate, clipped to [0, 100], and wider than the cells-only [90, 100]
    # (a resampled [0, 50, 100] can lose its top score)
    lo, hi = alice["aptitude_ci"]
    assert 0.0 <= lo < 90.0 < 95.0 <= hi == 100.0
    lo, hi = bob["unreliability_ci"]
    assert lo < 48.0 and 80.0 < hi <= 100.0
    assert not alice["aptitude_no_spread"]
    assert (alice["reps_min"], alice["reps_max"], bob["reps_min"]) == (3, 3, 2)
    assert (bob["gave_up"], bob["gave_up_n"], bob["gave_up_rate"]) == (2, 5, 0.4)
    assert alice["gave_up_rate"] == 0.0
    # only the give-up with no final action counts as walking out before any action
    assert (bob["walked_out"], bob["walked_out_rate"]) == (1, 0.2)
    lo, hi = bob["pass_ci"]  # Wilson 1/5
    assert lo == pytest.approx(0.0362, abs=1e-4)
    assert hi == pytest.approx(0.6245, abs=1e-4)


def test_by_mode_and_full_vs_sharded(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    assert list(s["by_mode"]) == ["full", "sharded"]
    assert (s["by_mode"]["full"]["n"], s["by_mode"]["full"]["passes"]) == (5, 2)
    assert (s["by_mode"]["sharded"]["n"], s["by_mode"]["sharded"]["passes"]) == (6, 2)
    fvs = s["full_vs_sharded"]
    assert fvs["full"]["mean_score"] == pytest.approx(50.0)
    assert fvs["sharded"]["mean_score"] == pytest.approx((280 / 3 + 60) / 2, abs=1e-4)
    assert fvs["full"]["aptitude"] == pytest.approx(90.0)
    assert fvs["sharded"]["unreliability"] == pytest.approx(32.0)
    d = fvs["sharded_minus_full"]
    assert d["n_pairs"] == 2
    assert d["aptitude"] == pytest.approx((10 + -6) / 2)
    assert d["unreliability"] == pytest.approx((-64 + -32) / 2)
    lo, hi = d["aptitude_ci"]  # pairs resampled, and each cell's reps within them
    assert -100.0 <= lo < -6.0 < 10.0 < hi <= 100.0


def test_buckets_by_user_turns(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    b = s["by_bucket"]
    # one-turn session falls in no configured bucket: reported, not dropped
    assert list(b) == ["2-4", "5-9", "10+", "other"]
    assert [(b[k]["n"], b[k]["passes"], b[k]["n_errors"]) for k in b] == [
        (4, 1, 1),
        (3, 2, 0),
        (3, 0, 0),
        (1, 1, 0),
    ]
    # 5-9 holds alice/full [0] and alice/sharded [100, 100]: a one-rep fragment of
    # alice/full says nothing of its P90 - P10, so only alice/sharded counts
    assert (b["5-9"]["n_cells"], b["5-9"]["n_cells_fragments"]) == (1, 1)
    assert b["5-9"]["aptitude"] == pytest.approx(100.0)
    assert b["5-9"]["aptitude_ci"] is None  # one cell
    bob = s["by_persona_bucket"]["bob"]
    assert [(bob[k]["n"], bob[k]["passes"]) for k in bob] == [(3, 1), (0, 0), (2, 0), (0, 0)]
    assert bob["5-9"]["pass_rate"] is None
    assert bob["5-9"]["pass_ci"] == [0.0, 1.0]


def test_cells(records: list[SessionRecord]) -> None:
    cells = summarize(records, BUCKETS, seed=7)["cells"]
    assert [(c["persona"], c["mode"]) for c in cells] == [
        ("alice", "full"),
        ("alice", "sharded"),
        ("bob", "full"),
        ("bob", "sharded"),
    ]
    a = cells[1]
    assert (a["n"], a["passes"], a["aptitude"], a["unreliability"]) == (3, 2, 100.0, 16.0)
    assert a["mean_score"] == pytest.approx(93.3333)
    b = cells[3]
    assert (b["aptitude"], b["unreliability"], b["perturbations"]) == (84.0, 48.0, [])
    assert (cells[2]["n"], cells[2]["n_errors"]) == (2, 1)


def test_pass_hat_k_errors_and_stop_reasons(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    g = s["pass_hat_k"]["by_goal"]["g"]
    assert (g["n"], g["passes"]) == (11, 4)
    # tasks are cells, trials their reps (the error dropped): alice/full 1 of 3,
    # alice/sharded 2 of 3, bob/full 1 of 2, bob/sharded 0 of 3; k up to min n = 2
    assert g["tasks"] == 4
    assert g["k"]["1"] == pytest.approx((1 / 3 + 2 / 3 + 1 / 2 + 0) / 4, abs=1e-4)
    assert g["k"]["2"] == pytest.approx((0 + 1 / 3 + 0 + 0) / 4, abs=1e-4)  # C(2,2)/C(3,2)
    assert set(g["k"]) == {"1", "2"}
    assert s["pass_hat_k"]["overall"]["k"]["1"] == pytest.approx(0.375, abs=1e-4)
    assert (g["trials_min"], g["trials_max"]) == (2, 3)
    lo, hi = g["k_ci"]["1"]
    assert 0.0 <= lo < 0.375 < hi <= 1.0
    overall = s["pass_hat_k"]["overall"]
    assert (overall["tasks"], overall["n"], overall["passes"]) == (4, 11, 4)
    assert overall["k_ci"]["2"] is not None
    e = s["errors"]
    assert e["n"] == 1
    assert e["by_stop_reason"]["infra_error"] == {
        "count": 1,
        "examples": ["HTTP 503 | <upstream> `x`"],
        "sessions": ["bob/g/full/2"],
    }
    assert e["retries"] == 3
    assert s["stop_reasons"] == {
        "goal_reached": 4,
        "user_gave_up": 2,
        "max_turns": 5,
        "infra_error": 1,
    }


def test_order_free_deterministic_and_plain_json(records: list[SessionRecord]) -> None:
    s = summarize(records, BUCKETS, seed=7)
    shuffled = records[:]
    random.Random(3).shuffle(shuffled)
    text = json.dumps(s, allow_nan=False)
    assert json.dumps(summarize(shuffled, BUCKETS, seed=7), allow_nan=False) == text
    # few resamples, so the seed visibly moves the discrete bootstrap quantiles
    a = summarize(records, BUCKETS, seed=7, n_resamples=40)
    b = summarize(records, BUCKETS, seed=8, n_resamples=40)
    assert a["overall"]["pass_rate"] == b["overall"]["pass_rate"]
    assert json.dumps(a) != json.dumps(b)
    assert json.dumps(a) == json.dumps(summarize(records, BUCKETS, seed=7, n_resamples=40))


def test_no_retries_and_no_records() -> None:
    s = summarize([record("a", "full", 0, 100, 3)], BUCKETS, seed=0)
    assert s["errors"] == {"n": 0, "n_sessions": 1, "by_stop_reason": {}, "retries": None}
    assert s["overall"]["aptitude_ci"] is None  # one cell: no between-cell interval
    assert "sharded_minus_full" not in s["full_vs_sharded"]
    empty = summarize([], BUCKETS, seed=0)
    assert empty["overall"]["n"] == 0
    assert empty["overall"]["aptitude"] is None
    json.dumps(empty, allow_nan=False)


def test_five_thousand_records_group_into_their_cells() -> None:
    # Speed is measured in bench/, not asserted here (project convention).
    rng = random.Random(0)
    recs = [
        record(f"p{p}", mode, rep, rng.choice([0, 40, 80, 100]), rng.randint(1, 14))
        for p in range(10)
        for mode in ("full", "sharded")
        for rep in range(250)
    ]
    # five goals: rewrite the key's goal without revalidating every record
    recs = [
        r.model_copy(update={"key": r.key.model_copy(update={"goal": f"g{i % 5}"})})
        for i, r in enumerate(recs)
    ]
    s = summarize(recs, Suite().buckets, seed=1)
    assert s["overall"]["n"] == 5000
    assert s["overall"]["n_cells"] == 100
    assert sum(r["n"] for r in s["by_bucket"].values()) == 5000
    assert s["full_vs_sharded"]["sharded_minus_full"]["n_pairs"] == 50
    assert [c["n"] for c in s["cells"]] == [50] * 100


def test_faults_count_the_simulated_users_findings_and_the_judges_failures() -> None:
    def fault(kind: str, kept: bool = False) -> dict[str, object]:
        return {"turn": 1, "kind": kind, "detail": "x", "attempt": 1, "kept": kept}

    recs = [
        record(
            "a",
            "full",
            0,
            None,
            1,
            StopReason.SIMULATOR_ERROR,
            meta={"simulator_faults": [fault("dropped_fact")] * 3},
        ),
        record(
            "a",
            "full",
            1,
            100,
            3,
            meta={"simulator_faults": [fault("dropped_fact"), fault("leaked_fact", True)]},
        ),
        record("a", "full", 2, 0, 3, meta={"grader_error": "JudgeError: no verdict"}),
        record("a", "full", 3, 100, 3),
    ]
    f = summarize(recs, BUCKETS, seed=7)["faults"]
    assert f["simulator"] == {
        "findings": 5,
        "sessions": 2,
        "sessions_failed": 1,
        "by_kind": {
            "dropped_fact": {"findings": 4, "kept": 0},
            "leaked_fact": {"findings": 1, "kept": 1},
        },
    }
    assert f["grader"] == {"sessions": 1, "examples": ["a/g/full/2"]}
    line = render_markdown(RunSummary.model_validate(summarize(recs, BUCKETS, seed=7)), "t")
    assert "found 5 in 2 sessions (dropped_fact 4, leaked_fact 1 (1 kept" in line
    assert "1 session ended as simulator_error" in line and "failed in 1 session." in line


def test_a_cost_some_sessions_leave_unknown_is_unknown_with_how_many() -> None:
    def billed(rep: int, cost: float | None) -> SessionRecord:
        llm = {"judge": {"calls": 1, "retries": 0, "cost_usd": cost}}
        return record("a", "full", rep, 100.0, 2, usage=Usage(calls=1), cost_usd=cost,
                      meta={"llm": llm})  # fmt: skip

    recs = [billed(0, 0.01), billed(1, None), billed(2, 0.02)]
    s = summarize(recs, BUCKETS, seed=7)
    cost = s["cost"]
    assert cost["total_usd"] is None and cost["unknown_sessions"] == 1
    assert cost["known_usd"] == pytest.approx(0.03) and cost["sessions"] == 3
    assert cost["by_role"]["judge"]["cost_usd"] is None
    assert cost["by_role"]["judge"]["unknown_sessions"] == 1
    assert s["efficiency"]["cost_usd_per_pass"]["unknown_sessions"] == 1
    assert s["efficiency"]["cost_usd_per_pass"].get("per_pass") is None
    text = render_markdown(RunSummary.model_validate(s), "t")
    assert "LLM cost: unknown (1 of 3 sessions called a model with no price;" in text
    assert "the other 2 cost \\$0.0300" in text and "judge unknown in 1 sessions" in text
    assert "unknown (1 of n=3 sessions called a model with no price)" in text  # per pass
    # every session priced: a figure as before
    priced = summarize([billed(0, 0.01), billed(1, 0.02)], BUCKETS, seed=7)["cost"]
    assert priced["total_usd"] == pytest.approx(0.03) and priced["unknown_sessions"] == 0
