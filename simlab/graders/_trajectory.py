"""How the agent's tool calls compare with the goal's expected tools."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from simlab.core import Check, Transcript
from simlab.spec import Goal

TRAJECTORY = "trajectory"


@dataclass(frozen=True, slots=True)
class TrajectoryMetrics:
    """Expected versus actual tool-name sequences.

    Attributes:
        exact: The sequences are equal.
        in_order: ``expected`` is a subsequence of ``actual`` (extra calls allowed).
        any_order: Every expected tool appears in ``actual`` at least as often
            as in ``expected`` (multiset inclusion).
        lcs: Length of the longest common subsequence.
        lcs_precision: ``lcs / len(actual)``; 1.0 when ``actual`` is empty
            (nothing wrong was called).
        lcs_recall: ``lcs / len(expected)``; 1.0 when ``expected`` is empty.
        lcs_f1: Harmonic mean of precision and recall; 0.0 when both are 0.
    """

    exact: bool
    in_order: bool
    any_order: bool
    lcs: int
    lcs_precision: float
    lcs_recall: float
    lcs_f1: float


def trajectory_metrics(expected: Sequence[str], actual: Sequence[str]) -> TrajectoryMetrics:
    """Compare the expected tool sequence with the one the agent called.

    Empty sequences have defined results:

    * both empty: ``exact``, ``in_order``, ``any_order`` true; precision 1, recall 1.
    * ``expected`` empty, ``actual`` not: ``exact`` false, ``in_order`` and
      ``any_order`` true; precision 0 (every call was unexpected), recall 1.
    * ``actual`` empty, ``expected`` not: every boolean false; precision 1
      (nothing wrong was called), recall 0.

    Args:
        expected: Tool names the goal expects, in order.
        actual: Tool names the agent called, in order.

    Returns:
        The metrics.
    """
    return _metrics(tuple(expected), tuple(actual))


@lru_cache(maxsize=4096)
def _metrics(expected: tuple[str, ...], actual: tuple[str, ...]) -> TrajectoryMetrics:
    """``trajectory_metrics``, remembered: sessions make the same few sequences of calls,
    and each is graded twice (the check and the record's tool use)."""
    lcs = _lcs_length(expected, actual)
    precision = lcs / len(actual) if actual else 1.0
    recall = lcs / len(expected) if expected else 1.0
    total = precision + recall
    # an LCS as long as `expected` is exactly `expected` being a subsequence
    in_order = lcs == len(expected)
    return TrajectoryMetrics(
        exact=in_order and len(actual) == lcs,
        in_order=in_order,
        # in order implies present; only count when it is not
        any_order=in_order or not Counter(expected) - Counter(actual),
        lcs=lcs,
        lcs_precision=precision,
        lcs_recall=recall,
        lcs_f1=2 * precision * recall / total if total else 0.0,
    )


def trajectory_check(goal: Goal, transcript: Transcript) -> Check:
    """The ``trajectory`` check: every tool call in the transcript versus ``goal.expected_tools``.

    ``passed`` is the metric named by ``goal.trajectory_match``; the detail
    carries all the metrics. Failed calls count: they are calls the agent made.

    Args:
        goal: The goal with ``expected_tools`` and ``trajectory_match``.
        transcript: A finished session.

    Returns:
        The check, with no ``turn`` (an order mismatch has no single turn).
    """
    actual = [call.name for _, call in transcript.tool_calls()]
    return judge_trajectory(goal, actual, trajectory_metrics(goal.expected_tools, actual))


def judge_trajectory(goal: Goal, actual: Sequence[str], metrics: TrajectoryMetrics) -> Check:
    """``trajectory_check`` from already-computed metrics."""
    mode = goal.trajectory_match
    if mode == "exact":
        passed = metrics.exact
    elif mode == "in_order":
        passed = metrics.in_order
    else:
        passed = metrics.any_order
    detail = (
        f"{mode} {'met' if passed else 'not met'}: expected [{', '.join(goal.expected_tools)}],"
        f" called [{', '.join(actual)}]; LCS {metrics.lcs}, precision"
        f" {metrics.lcs_precision:.2f}, recall {metrics.lcs_recall:.2f}, F1 {metrics.lcs_f1:.2f}"
    )
    return Check(passed=passed, detail=detail)


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    # one rolling row: O(len(a) * len(b)) time, O(len(b)) memory
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        left = 0
        for j, y in enumerate(b):
            if x == y:
                left = prev[j] + 1
            elif prev[j + 1] > left:
                left = prev[j + 1]
            cur[j + 1] = left
        prev = cur
    return prev[-1]
