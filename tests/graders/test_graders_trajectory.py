"""Trajectory metrics: LCS precision/recall, order modes, and the empty cases."""

from __future__ import annotations

import pytest

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import TrajectoryMetrics, trajectory_check, trajectory_metrics
from simlab.spec import Fact, Goal


def test_lcs_precision_and_recall_hand_computed() -> None:
    m = trajectory_metrics(["search", "hold"], ["search", "search", "baggage", "hold"])
    assert m.lcs == 2
    assert m.lcs_precision == 0.5
    assert m.lcs_recall == 1.0
    assert m.lcs_f1 == pytest.approx(2 * 0.5 * 1.0 / 1.5)  # 0.6667
    assert (m.exact, m.in_order, m.any_order) == (False, True, True)


def test_out_of_order_is_any_order_but_not_in_order() -> None:
    # LCS of [a, b, c] and [c, b, a] is 1 (any single name)
    m = trajectory_metrics(["a", "b", "c"], ["c", "b", "a"])
    assert m.lcs == 1
    assert m.lcs_precision == pytest.approx(1 / 3)
    assert m.lcs_recall == pytest.approx(1 / 3)
    assert (m.exact, m.in_order, m.any_order) == (False, False, True)


def test_lcs_interleaved() -> None:
    # expected a b c d, actual b a c x d: LCS is a c d (or b c d) = 3
    m = trajectory_metrics(["a", "b", "c", "d"], ["b", "a", "c", "x", "d"])
    assert m.lcs == 3
    assert m.lcs_precision == pytest.approx(3 / 5)
    assert m.lcs_recall == pytest.approx(3 / 4)
    assert m.in_order is False


def test_any_order_is_a_multiset() -> None:
    # hold expected twice, called once: not every expected call appears
    m = trajectory_metrics(["hold", "hold"], ["hold", "search"])
    assert m.any_order is False
    assert trajectory_metrics(["hold", "hold"], ["hold", "x", "hold"]).any_order is True


def test_exact() -> None:
    m = trajectory_metrics(["a", "b"], ("a", "b"))
    assert m == TrajectoryMetrics(True, True, True, 2, 1.0, 1.0, 1.0)


def test_both_empty() -> None:
    assert trajectory_metrics([], []) == TrajectoryMetrics(True, True, True, 0, 1.0, 1.0, 1.0)


def test_expected_empty_actual_not() -> None:
    m = trajectory_metrics([], ["search"])
    assert (m.exact, m.in_order, m.any_order) == (False, True, True)
    assert (m.lcs_precision, m.lcs_recall, m.lcs_f1) == (0.0, 1.0, 0.0)


def test_actual_empty_expected_not() -> None:
    m = trajectory_metrics(["search"], [])
    assert (m.exact, m.in_order, m.any_order) == (False, False, False)
    assert (m.lcs_precision, m.lcs_recall, m.lcs_f1) == (1.0, 0.0, 0.0)


def _goal(match: str) -> Goal:
    return Goal.model_validate(
        {
            "id": "g",
            "title": "g",
            "final_tool": "hold",
            "facts": [Fact(id="dest", slot="destination", value="HAN")],
            "expected_tools": ["search", "hold"],
            "trajectory_match": match,
        }
    )


def _transcript(*names_per_turn: list[str]) -> Transcript:
    return Transcript(
        turns=[
            Turn(
                index=i,
                user=UserTurn(text="hi"),
                agent=AgentReply(text="ok", tool_calls=[ToolCall(name=n) for n in names]),
            )
            for i, names in enumerate(names_per_turn, start=1)
        ]
    )


def test_trajectory_check_uses_goal_match_mode_and_counts_failed_calls() -> None:
    t = _transcript(["search"], [], ["search", "baggage"], ["hold"])
    in_order = trajectory_check(_goal("in_order"), t)
    assert in_order.passed is True
    assert "LCS 2, precision 0.50, recall 1.00, F1 0.67" in in_order.detail
    assert "called [search, search, baggage, hold]" in in_order.detail
    assert trajectory_check(_goal("exact"), t).passed is False

    reversed_calls = _transcript(["hold"], ["search"])
    assert trajectory_check(_goal("in_order"), reversed_calls).passed is False
    assert trajectory_check(_goal("any_order"), reversed_calls).passed is True

    # a call that errored is still a call the agent made
    t_err = Transcript(
        turns=[
            Turn(
                index=1,
                user=UserTurn(text="hi"),
                agent=AgentReply(
                    text="ok",
                    tool_calls=[ToolCall(name="search", error="timeout"), ToolCall(name="hold")],
                ),
            )
        ]
    )
    assert trajectory_check(_goal("exact"), t_err).passed is True
