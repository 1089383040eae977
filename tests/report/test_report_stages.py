"""The stage shares and first-failure transitions, against hand-computed figures, and
their tables in every renderer (untrusted stage names escaped)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from simlab.core import SessionKey
from simlab.report import render_html, render_markdown, render_terminal, summarize
from simlab.store import RunSummary, SessionRecord, StageFailure, StopReason, ToolStages
from tests.report.conftest import BUCKETS

WILSON_1_OF_4 = (0.045587, 0.699358)  # 95%: p=1/4, z=1.959964 (textbook value [0.046, 0.699])
WILSON_2_OF_4 = (0.150039, 0.849961)
WILSON_0_OF_2 = (0.0, 0.657620)


def _record(
    persona: str, goal: str, rep: int, *stages: str, status: str = "ok", staged: bool = True
) -> SessionRecord:
    failures = [StageFailure(stage=s, turn=i + 1) for i, s in enumerate(stages)]
    return SessionRecord(
        key=SessionKey(persona=persona, goal=goal, mode="full", rep=rep),
        seed=rep,
        status=status,  # type: ignore[arg-type]
        stop_reason=StopReason.GOAL_REACHED if status == "ok" else StopReason.AGENT_ERROR,
        n_user_turns=3,
        score=(0.0 if stages else 100.0) if status == "ok" else None,
        passed=not stages if status == "ok" else None,
        tool_stages=ToolStages(failures=failures) if staged and status == "ok" else None,
    )


RECORDS = [
    _record("a", "g1", 0, "selection", "execution"),
    _record("a", "g1", 1, "arguments", "output"),
    _record("a", "g2", 2),
    _record("a", "g2", 3),
    _record("b", "g1", 0, "execution", "output"),
    _record("b", "g2", 1, "output"),
    _record("b", "g2", 2, status="error"),  # errors never count
    _record("b", "g2", 3, staged=False),  # a record older than schema 5
]


def test_shares_per_persona_and_goal_hand_computed() -> None:
    s = summarize(RECORDS, BUCKETS, seed=1)["tool_stages"]
    assert s["stages"] == ["selection", "arguments", "execution", "output"]
    assert s["n_without_stages"] == 1
    a = s["by_persona"]["a"]
    assert a["n"] == 4
    assert (a["selection"]["count"], a["selection"]["rate"]) == (1, 0.25)
    assert a["selection"]["ci"] == pytest.approx(WILSON_1_OF_4, abs=1e-6)
    assert (a["none"]["count"], a["none"]["rate"]) == (2, 0.5)
    assert a["none"]["ci"] == pytest.approx(WILSON_2_OF_4, abs=1e-6)
    assert a["output"]["count"] == 0 and a["output"]["ci"] == pytest.approx((0.0, 0.489891), 1e-5)
    b = s["by_persona"]["b"]
    assert b["n"] == 2 and b["execution"]["count"] == 1 and b["output"]["count"] == 1
    assert b["none"]["ci"] == pytest.approx(WILSON_0_OF_2, abs=1e-6)
    g2 = s["by_goal"]["g2"]
    assert (g2["n"], g2["none"]["count"], g2["output"]["count"]) == (3, 2, 1)
    overall = s["overall"]
    assert overall["n"] == 6
    assert [overall[k]["count"] for k in [*s["stages"], "none"]] == [1, 1, 1, 1, 2]


def test_transitions_with_row_and_column_totals() -> None:
    t = summarize(RECORDS, BUCKETS, seed=1)["tool_stages"]["transitions"]
    assert t["rows"] == ["selection", "arguments", "execution", "output"]
    assert t["columns"] == [*t["rows"], "none"]
    assert t["counts"] == [
        [0, 0, 1, 0, 0],  # selection -> execution
        [0, 0, 0, 1, 0],  # arguments -> output
        [0, 0, 0, 1, 0],  # execution -> output
        [0, 0, 0, 0, 1],  # output, nothing after
    ]
    assert t["row_totals"] == [1, 1, 1, 1]
    assert t["column_totals"] == [0, 0, 1, 2, 1]
    assert t["n"] == 4


def test_a_domains_own_stage_comes_after_the_built_in_ones() -> None:
    records = [*RECORDS, _record("a", "g1", 9, "verification", "selection")]
    s = summarize(records, BUCKETS, seed=1)["tool_stages"]
    assert s["stages"][-1] == "verification"
    t = s["transitions"]
    assert t["counts"][4][0] == 1 and t["row_totals"][4] == 1


def test_the_tables_render_with_n_and_intervals_everywhere() -> None:
    summary = summarize(RECORDS, BUCKETS, seed=1)
    text = render_markdown(RunSummary.model_validate(summary), "run")
    assert "## Where tool calls first fail" in text
    assert "| persona a | 4 | 25.0% (1) [4.6, 69.9] |" in text
    assert "## First-failure transitions between stages (4 sessions that failed)" in text
    assert "| total | 0 | 0 | 1 | 2 | 1 | 4 |" in text
    out = io.StringIO()
    render_terminal(
        RunSummary.model_validate(summary), Console(file=out, width=200, color_system=None)
    )
    assert "Where tool calls first fail" in out.getvalue()
    assert "first \\ next" in out.getvalue()


def test_an_untrusted_stage_name_is_escaped() -> None:
    hostile = "x|<img src=y>\x1b[31m"
    summary = summarize([_record("a", "g", 0, hostile)], BUCKETS, seed=1)
    text = render_markdown(RunSummary.model_validate(summary), "run")
    assert "<img" not in text and "\x1b" not in text
    assert "| x\\|&lt;img src=y&gt;\\\\x1b[31m | . |" in text  # one cell, read literally
    out = io.StringIO()
    render_terminal(
        RunSummary.model_validate(summary), Console(file=out, width=200, color_system=None)
    )
    assert "\x1b" not in out.getvalue()


def test_a_run_without_stages_shows_no_stage_table() -> None:
    summary = summarize([_record("a", "g", 0, staged=False)], BUCKETS, seed=1)
    assert summary["tool_stages"]["overall"]["n"] == 0
    assert "Where tool calls first fail" not in render_markdown(
        RunSummary.model_validate(summary), "run"
    )


def test_the_html_heatmap_keeps_a_hostile_stage_name_inert() -> None:
    hostile = "</svg><script>alert(1)</script>\x1b[31m\u202e"
    records = [*RECORDS, _record("a", "g", 9, hostile, "selection")]
    page = render_html(
        RunSummary.model_validate(summarize(records, BUCKETS, seed=1)), records, "run"
    )
    assert "Tool use: first failing stage to the next" in page
    assert "<script>alert" not in page and "\x1b" not in page and "\u202e" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
