"""Length rows use the planned length; realised length is a separate, labelled table."""

from __future__ import annotations

from simlab.report import render_markdown, summarize
from simlab.store import RunSummary, StopReason

from .conftest import BUCKETS, record

GAVE_UP = StopReason.USER_GAVE_UP


def outcome_driven_run() -> list:  # type: ignore[type-arg]
    """Every failing user talks on to 12 turns; planned lengths are spread evenly."""
    return [
        record("a", "full", 0, 100, 3, planned=2),
        record("a", "full", 1, 0, 12, GAVE_UP, planned=3),
        record("a", "sharded", 0, 100, 6, planned=6),
        record("a", "sharded", 1, 0, 13, GAVE_UP, planned=6),
        record("a", "sharded", 2, 100, 9, planned=11),
        record("a", "sharded", 3, 0, 12, planned=11),
        record("a", "sharded", 4, None, 4, planned=11),  # an error: counted apart
    ]


def test_sessions_count_in_the_bucket_of_their_planned_length() -> None:
    s = summarize(outcome_driven_run(), BUCKETS, seed=0)
    b = s["by_bucket"]
    assert [(k, b[k]["n"], b[k]["passes"], b[k]["n_errors"]) for k in b] == [
        ("2-4", 2, 1, 0),
        ("5-9", 2, 1, 0),
        ("10+", 2, 1, 1),
    ]
    assert s["by_persona_bucket"]["a"]["10+"]["passes"] == 1
    assert s["lengths"]["bucket_by"] == "planned_turns"
    assert s["lengths"]["unplanned"] == 0 and s["lengths"]["notes"] == []
    assert s["lengths"]["sessions_by_planned_turns"] == {"2": 1, "3": 1, "6": 2, "11": 3}


def test_realised_length_is_descriptive_and_shows_the_outcome_bias() -> None:
    s = summarize(outcome_driven_run(), BUCKETS, seed=0)
    r = s["by_realised_length"]
    # by realised length every failure is "long": 100% / 100% / 0% by construction
    assert [(k, r[k]["n"], r[k]["passes"]) for k in r] == [
        ("2-4", 1, 1),
        ("5-9", 2, 2),
        ("10+", 3, 0),
    ]
    assert r["10+"]["stop_reasons"] == {"user_gave_up": 2, "max_turns": 1}
    typed = RunSummary.model_validate(s)  # what simlab.read_run gives
    assert typed.by_realised_length["10+"].n == 3 and typed.by_bucket["10+"].n == 2
    assert typed.lengths is not None and typed.lengths.bucket_by == "planned_turns"
    assert r["2-4"]["n_errors"] == 1
    md = render_markdown(RunSummary.model_validate(s), "run").lower()
    label = "realised length — depends on the outcome (failing users talk longer); not a cause"
    assert label in md
    assert md.index("pass rate by planned length") < md.index(label)


def test_records_without_a_plan_are_unplanned_and_said_so() -> None:
    runs = [
        record("a", "full", 0, 100, 3, planned=None, meta={"imported": True}),
        record("a", "full", 1, 0, 7, planned=None, meta={"imported": True}),
        record("a", "full", 2, 100, 3, planned=None),  # an older simlab's record
        record("a", "full", 3, 100, 1, planned=1),  # planned, but in no bucket
    ]
    s = summarize(runs, BUCKETS, seed=0)
    b = s["by_bucket"]
    assert list(b) == ["2-4", "5-9", "10+", "other", "unplanned"]
    assert (b["unplanned"]["n"], b["unplanned"]["passes"]) == (3, 2)
    assert (b["other"]["n"], b["2-4"]["n"]) == (1, 0)
    assert (s["lengths"]["unplanned"], s["lengths"]["unplanned_imported"]) == (3, 2)
    md = render_markdown(RunSummary.model_validate(s), "run").lower()
    assert "imported sessions have no plan" in md
    assert "written before simlab recorded planned lengths" in md
    # the realised table still shows every session's length
    r = s["by_realised_length"]
    assert (r["2-4"]["n"], r["5-9"]["n"], r["other"]["n"]) == (2, 1, 1)
